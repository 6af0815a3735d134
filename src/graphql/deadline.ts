import { getNamedType, isCompositeType, isListType, isNonNullType, isObjectType, type GraphQLFieldResolver, type GraphQLSchema } from 'graphql';
import { AppError } from '../errors/app-error.js';
import type { RequestContext } from '../runtime.js';

/**
 * Bounds an operation's time by its request's deadline (RequestContext.deadline): a resolver
 * that would start after it throws 503 instead, so a long operation stops at its next object or
 * list field rather than running on after its client was answered. Only fields that lead to
 * more work are wrapped (objects and lists, where pages and loaders run): a scalar leaf costs
 * as little as the check itself. In place, once, before graphql-jit compiles against the schema.
 */
export function withDeadlines(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const resolve = field.resolve;
      if (!resolve) continue;
      const unwrapped = isNonNullType(field.type) ? field.type.ofType : field.type;
      if (!isListType(unwrapped) && !isCompositeType(getNamedType(field.type))) continue;
      const guarded: GraphQLFieldResolver<unknown, RequestContext> = (source, args, ctx, info) => {
        if (ctx?.deadline !== undefined && performance.now() > ctx.deadline) throw pastDeadline(ctx);
        return resolve(source, args, ctx, info);
      };
      field.resolve = guarded as typeof resolve;
    }
  }
  return schema;
}

const pastDeadline = (ctx: RequestContext) =>
  new AppError('service_unavailable', `The operation ran past its time limit of ${ctx.runtime.config.OPERATION_TIMEOUT_MS} ms and was stopped; ask for less at once`, {
    headers: { 'Retry-After': '1' },
  });
