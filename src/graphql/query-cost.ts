import { complexityFromQuery, ComplexityErrorKind, type ComplexityResult } from '@pothos/plugin-complexity';
import { PothosValidationError } from '@pothos/core';
import { getOperationAST, GraphQLError, Kind, type DocumentNode, type ExecutionArgs, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { RateStatus } from '../auth/rate-limit.js';
import { AppError } from '../errors/app-error.js';
import { rateLimitRejections } from '../observability/metrics.js';
import type { RequestContext } from '../runtime.js';
import { complexityError, complexityLimits } from './builder.js';
import { appErrorToGraphQL } from './errors.js';

/** What a GraphQL response reports in `extensions.cost`. */
export interface CostReport {
  /** The operation's cost, as the complexity settings of its fields add it up. */
  requestedQueryCost: number;
  /** The most one operation may cost (GRAPHQL_MAX_COMPLEXITY). */
  maximumQueryCost: number;
  /** Requests counted against the client's rate limits for this operation; 1 (its HTTP request) when it was refused. */
  charged: number;
  /** The rate-limit window the X-RateLimit-* headers surface, after this operation's charge. */
  throttleStatus: { window: string; limit: number; remaining: number; resetAt: string };
}

/** Requests an operation of `cost` counts as: one per GRAPHQL_COST_PER_REQUEST, at least one. */
export const requestsFor = (cost: number, perRequest: number) => Math.max(1, Math.ceil(cost / perRequest));

/**
 * The cost of the operation `args` selects, from its fields' complexity settings (the Pothos
 * complexity plugin's own computation, list sizes from its arguments and variables). Undefined
 * when the document cannot be measured as sent (unknown operation, variables that do not
 * coerce): the executor refuses it with its own error, before any resolver.
 */
export function measure(args: Pick<ExecutionArgs, 'schema' | 'document' | 'operationName' | 'variableValues' | 'contextValue'>): ComplexityResult | undefined {
  const operation = getOperationAST(args.document, args.operationName ?? undefined);
  if (!operation) return undefined;
  // complexityFromQuery measures the first operation: the selected one, with the fragments.
  const document: DocumentNode = { ...args.document, definitions: [operation, ...args.document.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION)] };
  try {
    return complexityFromQuery(document, { schema: args.schema, ctx: args.contextValue as object, variables: (args.variableValues ?? {}) as Record<string, unknown> });
  } catch (error) {
    if (error instanceof GraphQLError || error instanceof PothosValidationError) return undefined;
    throw error;
  }
}

/** The limit the operation breaks, if any, in the order the complexity plugin checks them. */
function overLimit(ctx: RequestContext, result: ComplexityResult): AppError | undefined {
  const max = complexityLimits(ctx);
  const kind =
    max.depth !== undefined && result.depth > max.depth
      ? ComplexityErrorKind.Depth
      : max.breadth !== undefined && result.breadth > max.breadth
        ? ComplexityErrorKind.Breadth
        : max.complexity !== undefined && result.complexity > max.complexity
          ? ComplexityErrorKind.Complexity
          : undefined;
  if (!kind) return undefined;
  return complexityError(kind, { ...result, maxDepth: max.depth, maxBreadth: max.breadth, maxComplexity: max.complexity });
}

const throttleStatus = (status: RateStatus): CostReport['throttleStatus'] => ({
  window: status.window,
  limit: status.limit,
  remaining: status.remaining,
  resetAt: new Date(status.resetAt).toISOString(),
});

type Outcome = { report?: CostReport; refusal?: GraphQLError };

/**
 * Measures the operation once, refuses it over the maximum, then charges the requests its cost
 * counts as past the one its HTTP request already paid. A client whose windows cannot pay them
 * is refused with the rate-limit error (429, Retry-After) and charged nothing more.
 */
async function price(ctx: RequestContext, args: ExecutionArgs): Promise<Outcome> {
  if (ctx.ownDocument) return {};
  const result = measure(args);
  if (!result) return {};
  const { config, rateLimits } = ctx.runtime;
  const rate = ctx.rateLimit;
  const report = (charged: number, status: RateStatus | undefined): CostReport | undefined =>
    status && { requestedQueryCost: result.complexity, maximumQueryCost: config.GRAPHQL_MAX_COMPLEXITY, charged, throttleStatus: throttleStatus(status) };
  const refused = overLimit(ctx, result);
  if (refused) return { report: report(1, rate?.status), refusal: appErrorToGraphQL(refused) };
  ctx.queryCost = result.complexity;
  const requests = requestsFor(result.complexity, config.GRAPHQL_COST_PER_REQUEST);
  if (!rate || requests === 1) return { report: report(1, rate?.status) };
  const decision = await rateLimits.charge(rate.clientId, rate.quota, requests - 1);
  Object.assign(ctx.responseHeaders, decision.headers);
  rate.status = decision.status;
  if (decision.allowed) return { report: report(requests, decision.status) };
  ctx.logger.info({ client: rate.clientId, cost: result.complexity, requests }, 'rate limit exceeded by query cost');
  rateLimitRejections.inc({ listener: 'graphql' });
  const { window, remaining } = decision.status;
  const error = new AppError(
    'rate_limit_exceeded',
    `Rate limit exceeded: this operation costs ${result.complexity}, counted as ${requests} requests, and this ${window} had ${remaining + 1} left; retry after ${decision.retryAfter} s or ask for less`,
    { headers: decision.headers },
  );
  return { report: report(1, decision.status), refusal: appErrorToGraphQL(error) };
}

const withReport = (result: ExecutionResult, report: CostReport): ExecutionResult => ({ ...result, extensions: { ...result.extensions, cost: report } });

/**
 * Query cost before execution, for queries, mutations and subscriptions alike: over the maximum
 * or past the client's budget, the operation is refused before any resolver runs. A query's or
 * mutation's response reports its cost in `extensions.cost`; a subscription is charged once, when
 * it starts. REST routes execute their documents outside yoga and are charged one request each.
 */
export function useQueryCost(): Plugin {
  return {
    async onExecute({ args, setResultAndStopExecution }) {
      const { report, refusal } = await price(args.contextValue as unknown as RequestContext, args);
      if (refusal) {
        setResultAndStopExecution(report ? { errors: [refusal], extensions: { cost: report } } : { errors: [refusal] });
        return;
      }
      if (!report) return;
      return {
        onExecuteDone: ({ result, setResult }) => {
          if (!(Symbol.asyncIterator in result)) setResult(withReport(result, report));
        },
      };
    },
    async onSubscribe({ args, setResultAndStopExecution }) {
      const { refusal } = await price(args.contextValue as unknown as RequestContext, args);
      // data: null, so graphql-sse delivers it as an event (a 429 is refused before the stream opens).
      if (refusal) setResultAndStopExecution({ data: null, errors: [refusal] });
    },
  };
}
