import SchemaBuilder from '@pothos/core';
import ComplexityPlugin, { ComplexityErrorKind, type ComplexityErrorFn } from '@pothos/plugin-complexity';
import RelayPlugin from '@pothos/plugin-relay';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import ZodPlugin from '@pothos/plugin-zod';
import { Kind, valueFromASTUntyped, type GraphQLResolveInfo } from 'graphql';
import type { Scope } from '../auth/scopes.js';
import { AppError, validationFailed } from '../errors/app-error.js';
import { zodIssuesToDetails } from '../errors/zod-details.js';
import type { RequestContext } from '../runtime.js';
import { isoInstant } from '../time/iso-instant.js';
import { INPUT_YEARS, parseInstant, RANGE_MESSAGE, type InputProblem } from '../time/instant-input.js';
import { checkNodeCount, decodeNodeId, MAX_NODE_IDS } from './node-id.js';

export type Context = RequestContext;

/** Which envelope type a field's validation failures use (analytics paths answer validation_error, scheduling and video invalid_request). */
export type ValidationErrorType = 'validation_error' | 'invalid_request';

export const builder = new SchemaBuilder<{
  Context: Context;
  // Mirrors the OAuth scopes plus per-app access (a token's client may act for some apps only).
  AuthScopes: { scope: Scope; app: string };
  Scalars: {
    DateTime: { Input: Date; Output: Date | string };
    JSON: { Input: unknown; Output: unknown };
    UUID: { Input: string; Output: string };
  };
  DefaultFieldNullability: false;
  // A connection's edges, their nodes and its nodes are never null: a page holds rows only.
  DefaultEdgesNullability: false;
  DefaultNodeNullability: false;
}>({
  plugins: [ScopeAuthPlugin, RelayPlugin, ZodPlugin, ComplexityPlugin],
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
  // Global object identification, and the connection types of every list (connection.ts):
  // keyset pages read forward (first/after) or backward (last/before).
  relay: {
    cursorType: 'String',
    pageInfoTypeOptions: {
      description: 'Keyset pagination: pass endCursor as `after` for the next page, or startCursor as `before` for the previous one.',
    },
    hasNextPageFieldOptions: { description: 'Whether rows follow this page. Read backward (last), always false, as Relay allows: rows after `before` are where the client came from.' },
    hasPreviousPageFieldOptions: { description: 'Whether rows precede this page. Read forward (first), always false, as Relay allows: page back with last and before to find out.' },
    startCursorFieldOptions: { description: 'The cursor of the first item (its edge cursor): pass it as `before` for the rows before this page; null when the page is empty.' },
    endCursorFieldOptions: { description: 'The cursor of the last item (its edge cursor): pass it as `after` for the rows after this page; null when the page is empty.' },
    pageInfoFieldOptions: { description: 'Whether more follow, and the cursor to continue from.' },
    edgesFieldOptions: { description: 'The items of this page with cursors (Relay style); nodes is the shorter form.', nullable: false },
    nodesOnConnection: { description: 'The items of this page, in order.' },
    nodeFieldOptions: { nullable: false },
    cursorFieldOptions: { description: 'The cursor of this item: pass it as `after` to continue after it, or as `before` for the items before it.' },
    decodeGlobalID: (globalID) => decodeNodeId(globalID),
    nodeTypeOptions: { description: 'An object with a global id: refetch it with `node(id:)`.' },
    idFieldOptions: { description: 'Global id (opaque): pass it to `node` or `nodes` to refetch this object. The raw id is its own field.' },
    nodeQueryOptions: {
      description: 'The object with this global id, if the token may read it: null for an unknown id and for one of an app the token has no access to. Needs the scope its type needs (forbidden without it).',
      complexity: 1,
      args: { id: { description: 'A global id, the `id` of a Node.' } },
    },
    nodesQueryOptions: {
      description: `The objects with these global ids (at most ${MAX_NODE_IDS}), in order; null where node(id:) would be null. Loaded in one query per type.`,
      args: { ids: { description: `Global ids, the \`id\` of Nodes (at most ${MAX_NODE_IDS}).` } },
      complexity: (args: { ids?: readonly unknown[] }) => ({ field: 1, multiplier: Math.min(args.ids?.length ?? 1, MAX_NODE_IDS) }),
      resolve: (_root, args, _ctx, _info, resolveNodes) => {
        checkNodeCount(args.ids);
        return resolveNodes(args.ids);
      },
    },
  },
  complexity: {
    defaultComplexity: 1,
    defaultListMultiplier: 10,
    // Measured once before execution by query-cost.ts; measured here only for an operation that
    // plugin did not (the ownDocument check in complexityLimits keeps REST routes unbudgeted).
    limit: (ctx) => (ctx.queryCost === undefined ? complexityLimits(ctx) : {}),
    complexityError,
  },
});

/**
 * The budget of an operation: client documents only (GRAPHQL_MAX_*). A REST route's document is
 * fixed and its page sizes validated, so working out its cost would be pure overhead on every REST request.
 */
export function complexityLimits(ctx: Context): { depth?: number; complexity?: number; breadth?: number } {
  return ctx.ownDocument
    ? {}
    : {
        depth: ctx.runtime.config.GRAPHQL_MAX_DEPTH,
        complexity: ctx.runtime.config.GRAPHQL_MAX_COMPLEXITY,
        breadth: 200,
      };
}

export function complexityError(kind: ComplexityErrorKind, result: Parameters<ComplexityErrorFn>[1]): AppError {
  const message = `Operation refused: ${kind.toLowerCase()} ${result[kind.toLowerCase() as 'depth']} exceeds the limit of ${result[`max${kind}` as 'maxDepth']}`;
  // The complexity is the operation's query cost (extensions.cost): say so, and what lowers it.
  return new AppError('invalid_request', kind === ComplexityErrorKind.Complexity ? `${message}: its query cost is over the maximum; ask for smaller pages (first) or fewer nested lists` : message);
}

export function validationErrorType(info: Pick<GraphQLResolveInfo, 'parentType' | 'fieldName'>): ValidationErrorType {
  const extensions = info.parentType.getFields()[info.fieldName]?.extensions as { validationErrorType?: ValidationErrorType } | undefined;
  return extensions?.validationErrorType ?? 'validation_error';
}

const dateTimeProblems: Record<InputProblem, string> = {
  format: 'DateTime must be an ISO 8601 string with a time and a zone, e.g. 2026-03-08T14:00:00Z',
  calendar: 'DateTime must be a real calendar date and time',
  range: `DateTime ${RANGE_MESSAGE}`,
};

// A real date and time with a zone: "2026-03-08", "March 8" or 2026-02-30T00:00Z are refused.
function parseDateTime(value: unknown): Date {
  const parsed = typeof value === 'string' ? parseInstant(value) : ({ ok: false, problem: 'format' } as const);
  if (!parsed.ok) throw new AppError('validation_error', dateTimeProblems[parsed.problem]);
  return parsed.value;
}

builder.scalarType('DateTime', {
  description: `An ISO 8601 instant with a zone (Z or an offset), e.g. 2026-03-08T14:00:00.000Z; years ${INPUT_YEARS.min} to ${INPUT_YEARS.max}`,
  serialize: (value) => isoInstant(value instanceof Date ? value : new Date(value)),
  parseValue: parseDateTime,
  // One argument: a DateTime literal holds no variables, so graphql-jit compiles it (scalar-literals.ts).
  parseLiteral: (ast) => parseDateTime(valueFromASTUntyped(ast)),
});

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// Ids such as appId: a malformed one fails at coercion, before auth or any resolver runs, so it
// is reported as a validation error of that argument (an invalid path parameter is a 400).
builder.scalarType('UUID', {
  description: 'A UUID, e.g. 7d4f2c0e-5b1a-4c9e-9f3d-2a6b8c1e0f42',
  serialize: (value) => String(value),
  parseValue: (value) => {
    if (typeof value !== 'string' || !UUID_PATTERN.test(value)) throw new AppError('validation_error', 'must be a UUID');
    return value.toLowerCase();
  },
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING || !UUID_PATTERN.test(ast.value)) throw new AppError('validation_error', 'must be a UUID');
    return ast.value.toLowerCase();
  },
});

builder.scalarType('JSON', {
  description: 'Any JSON value',
  serialize: (value) => value,
  parseValue: (value) => value,
});

/** The builder's schema types, for helpers typed against it (connection.ts). */
export type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

builder.queryType({ description: 'Reads. Every field needs a bearer token; the scope each field needs is in its description.' });
builder.mutationType({ description: 'Writes. Every field needs a bearer token; the scope each field needs is in its description.' });
