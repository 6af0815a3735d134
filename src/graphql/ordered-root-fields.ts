import { getOperationAST, Kind, type DocumentNode } from 'graphql';

/**
 * A mutation whose root selections could run out of order under graphql-jit 0.8.7 (pinned, see
 * package.json; zalando-incubator/graphql-jit#283: a mutation field inside a fragment): anything
 * but a single plain root field runs on yoga's executor, which runs them in sequence.
 */
export function hasOrderedRootFields(document: DocumentNode, operationName?: string | null): boolean {
  const operation = getOperationAST(document, operationName);
  if (!operation || operation.operation !== 'mutation') return false;
  const selections = operation.selectionSet.selections;
  return selections.length !== 1 || selections[0]!.kind !== Kind.FIELD;
}
