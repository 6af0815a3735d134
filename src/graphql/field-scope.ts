import type { GraphQLField } from 'graphql';
import type { Scope } from '../auth/scopes.js';

interface ScopedExtensions {
  pothosOptions?: { authScopes?: unknown };
}

/**
 * The scope a root field needs, read from its Pothos scope-auth rule (called with a placeholder
 * app): a lone `scope` or one under `$all`. A scope among alternatives (`$any`) is not "needed".
 */
export function requiredScope(field: GraphQLField<unknown, unknown>): Scope | undefined {
  const rule = (field.extensions as ScopedExtensions).pothosOptions?.authScopes;
  const value = typeof rule === 'function' ? (rule as (root: unknown, args: unknown) => unknown)(undefined, { appId: '00000000-0000-0000-0000-000000000000' }) : rule;
  const find = (v: unknown): Scope | undefined => {
    if (!v || typeof v !== 'object') return undefined;
    const record = v as Record<string, unknown>;
    if (typeof record.scope === 'string') return record.scope as Scope;
    return find(record.$all);
  };
  return find(value);
}
