import { getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { graphqlOperations } from './metrics.js';

/**
 * The `operation` label's values: a closed set, since a client names its operations and every
 * distinct label value is a series the registry keeps for the life of the process. The names
 * the service's own documents use (GraphiQL's examples, the REST routes) always have their own
 * series; the first `firstSeen` other names do too, and every later one counts as `other`.
 */
export class OperationLabels {
  private readonly seen = new Set<string>();
  constructor(
    private readonly known: ReadonlySet<string>,
    private readonly firstSeen: number,
  ) {}

  label(name: string | undefined): string {
    if (name === undefined) return 'anonymous';
    if (this.known.has(name) || this.seen.has(name)) return name;
    if (this.seen.size >= this.firstSeen) return 'other';
    this.seen.add(name);
    return name;
  }
}

/** Counts every executed operation (queries, mutations and subscriptions) by name and result. */
export function useOperationMetrics(labels: OperationLabels): Plugin {
  const record = (args: { document: Parameters<typeof getOperationAST>[0]; operationName?: string | null }, failed: boolean) => {
    const operation = getOperationAST(args.document, args.operationName ?? undefined);
    graphqlOperations.inc({
      operation: labels.label(operation?.name?.value),
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
