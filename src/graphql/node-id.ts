import { AppError } from '../errors/app-error.js';

/** The most global ids one `nodes` call takes: each is a row to load. */
export const MAX_NODE_IDS = 100;

/** Names of the types that implement Node (node.ts adds them as it makes them). */
export const nodeTypes = new Set<string>();

/** A global id that does not decode to a Node type is the caller's mistake: a validation error, not a lookup. */
export function decodeNodeId(globalID: string): { typename: string; id: string } {
  const invalid = () => new AppError('validation_error', 'Invalid global id: pass the `id` of a Node as it was returned');
  if (typeof globalID !== 'string' || !/^[A-Za-z0-9+/]+={0,2}$/.test(globalID)) throw invalid();
  const decoded = Buffer.from(globalID, 'base64').toString('utf8');
  const at = decoded.indexOf(':');
  const typename = decoded.slice(0, at);
  const id = decoded.slice(at + 1);
  if (at <= 0 || id === '' || !nodeTypes.has(typename)) throw invalid();
  return { typename, id };
}

export function checkNodeCount(ids: readonly unknown[]): void {
  if (ids.length > MAX_NODE_IDS) {
    throw new AppError('validation_error', `nodes takes at most ${MAX_NODE_IDS} ids; ${ids.length} were given`, {
      details: [{ field: 'ids', code: 'too_big', message: `at most ${MAX_NODE_IDS} ids` }],
    });
  }
}
