import { getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { graphqlOperations } from './metrics.js';

/** Counts every executed operation (queries, mutations and subscriptions) by name and result. */
export function useOperationMetrics(): Plugin {
  const record = (args: { document: Parameters<typeof getOperationAST>[0]; operationName?: string | null }, failed: boolean) => {
    const operation = getOperationAST(args.document, args.operationName ?? undefined);
    graphqlOperations.inc({
      operation: operation?.name?.value ?? 'anonymous',
      type: operation?.operation ?? 'unknown',
      result: failed ? 'error' : 'ok',
    });
  };
  return {
    onExecute: ({ args }) => ({
      onExecuteDone: ({ result }) => {
        const failed = !(Symbol.asyncIterator in result) && Boolean(result.errors?.length);
        record(args, failed);
      },
    }),
    onSubscribe: ({ args }) => ({
      onSubscribeResult: ({ result }) => {
        const failed = !(Symbol.asyncIterator in result) && Boolean((result as { errors?: unknown[] }).errors?.length);
        record(args, failed);
      },
    }),
  };
}
