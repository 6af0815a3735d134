import SchemaBuilder from '@pothos/core';
import ComplexityPlugin from '@pothos/plugin-complexity';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import ZodPlugin from '@pothos/plugin-zod';
import type { GraphQLResolveInfo } from 'graphql';
import type { Scope } from '../auth/scopes.js';
import { AppError, validationFailed } from '../errors/app-error.js';
import { zodIssuesToDetails } from '../errors/zod-details.js';
import type { RequestContext } from '../runtime.js';

export type Context = RequestContext;

/** Which envelope type a field's validation failures use (SPEC: analytics vs scheduling paths). */
export type ValidationErrorType = 'validation_error' | 'invalid_request';

export const builder = new SchemaBuilder<{
  Context: Context;
  // Mirrors the OAuth scopes plus per-app access (DESIGN section 2).
  AuthScopes: { scope: Scope; app: string };
  Scalars: {
    DateTime: { Input: Date; Output: Date | string };
    JSON: { Input: unknown; Output: unknown };
  };
  DefaultFieldNullability: false;
}>({
  plugins: [ScopeAuthPlugin, ZodPlugin, ComplexityPlugin],
  defaultFieldNullability: false,
  scopeAuth: {
    authorizeOnSubscribe: true,
    authScopes: (ctx) => ({
      scope: (scope) => ctx.auth?.scopes.has(scope) ?? false,
      app: (appId) => ctx.auth?.apps.has(appId) ?? false,
    }),
    unauthorizedError: () => new AppError('forbidden', 'Missing scope or no access to this app'),
  },
  zod: {
    validationError: (error, _args, _ctx, info) => validationFailed(zodIssuesToDetails(error.issues), validationErrorType(info)),
  },
  complexity: {
    defaultComplexity: 1,
    defaultListMultiplier: 10,
    limit: (ctx) => ({
      depth: ctx.runtime.config.GRAPHQL_MAX_DEPTH,
      complexity: ctx.runtime.config.GRAPHQL_MAX_COMPLEXITY,
      breadth: 200,
    }),
    complexityError: (kind, result) =>
      new AppError(
        'invalid_request',
        `Operation refused: ${kind.toLowerCase()} ${result[kind.toLowerCase() as 'depth']} exceeds the limit of ${result[`max${kind}` as 'maxDepth']}`,
      ),
  },
});

export function validationErrorType(info: Pick<GraphQLResolveInfo, 'parentType' | 'fieldName'>): ValidationErrorType {
  const extensions = info.parentType.getFields()[info.fieldName]?.extensions as { validationErrorType?: ValidationErrorType } | undefined;
  return extensions?.validationErrorType ?? 'validation_error';
}

builder.scalarType('DateTime', {
  description: 'An ISO 8601 instant in UTC, e.g. 2026-03-08T14:00:00.000Z',
  serialize: (value) => (value instanceof Date ? value.toISOString() : new Date(value).toISOString()),
  parseValue: (value) => {
    const date = typeof value === 'string' ? new Date(value) : new Date(NaN);
    if (Number.isNaN(date.getTime())) throw new AppError('validation_error', 'DateTime must be an ISO 8601 string');
    return date;
  },
});

builder.scalarType('JSON', {
  description: 'Any JSON value',
  serialize: (value) => value,
  parseValue: (value) => value,
});

builder.queryType({ description: 'Reads. Every field needs a bearer token; the scope each field needs is in its description.' });
builder.mutationType({ description: 'Writes. Every field needs a bearer token; the scope each field needs is in its description.' });
