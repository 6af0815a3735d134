// Every scope a client can be granted; each GraphQL field and REST path requires one.
export const scopes = [
  'oauth:revoke',
  'messages:read',
  'campaigns:read',
  'analytics:read',
  'scheduling:read',
  'scheduling:write',
  'messages:send',
  'messages:ingest',
  'video:read',
  'webhooks:write',
  'events:read',
] as const;

export type Scope = (typeof scopes)[number];

export const isScope = (value: string): value is Scope => (scopes as readonly string[]).includes(value);
