import { z } from 'zod';
import { AppRef, appLoader } from '../apps/graphql.js';
import type { AppRow } from '../apps/tables.js';
import { builder } from '../graphql/builder.js';
import { revokeToken } from './access-tokens.js';

const Viewer = builder.objectRef<{ clientId: string; scopes: string[]; appIds: string[] }>('Viewer').implement({
  description: 'The OAuth client the bearer token was issued to.',
  fields: (t) => ({
    clientId: t.exposeString('clientId', { description: 'The OAuth client id of the token.' }),
    scopes: t.exposeStringList('scopes', {
      description: 'Granted scopes, as the token carries them (messages:read, scheduling:write, ...): strings, not an enum, since a scope name has a colon, which an enum value cannot.',
    }),
    appIds: t.exposeStringList('appIds', { description: 'The ids of the apps this token may access; apps has the apps themselves.' }),
    apps: t.field({
      type: [AppRef],
      description: 'The apps this token may access, by name (then id), loaded in one query; each reaches its lists as app(id:) does.',
      // Its selection runs once per app of the token: that many, not a guess, multiply its cost.
      complexity: (_args, ctx) => ({ field: 1, multiplier: Math.max(1, ctx.auth?.apps.size ?? 1) }),
      resolve: async (viewer, _args, ctx) => {
        const rows = await appLoader(ctx).loadMany(viewer.appIds);
        const found = rows.filter((row): row is AppRow => row !== undefined && !(row instanceof Error));
        return found.sort((a, b) => (a.name === b.name ? (a.id < b.id ? -1 : 1) : a.name < b.name ? -1 : 1));
      },
    }),
  }),
});

builder.queryField('viewer', (t) =>
  t.field({
    type: Viewer,
    description: 'The caller. Needs any valid token.',
    resolve: (_root, _args, ctx) => ({
      clientId: ctx.auth!.clientId,
      scopes: [...ctx.auth!.scopes],
      appIds: [...ctx.auth!.apps],
    }),
  }),
);

builder.mutationField('revokeToken', (t) =>
  t.boolean({
    description: 'Revokes an access token of the calling client (RFC 7009: succeeds even for an invalid token). Scope: oauth:revoke.',
    authScopes: { scope: 'oauth:revoke' },
    extensions: { validationErrorType: 'invalid_request' },
    args: { token: t.arg.string({ description: 'The access token to revoke.', required: true, validate: { schema: z.string().min(1, 'Required').regex(/\S/, 'Required') } }) },
    resolve: async (_root, args, ctx) => {
      await revokeToken(ctx, args.token);
      return true;
    },
  }),
);
