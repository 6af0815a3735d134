import type { Db } from './client.js';
import { compileRowMapper } from './row-mapper.js';

/**
 * Queries built once per shape (which optional filters a request uses), per database handle:
 * the values go in as placeholders, so a hot read does not rebuild its SQL text with drizzle on
 * every request, a large share of a REST read's CPU. A shape past the cap is built per request
 * and not kept, so odd combinations cannot grow the cache without bound. Each kept query maps its
 * rows with a mapper compiled once (row-mapper.ts).
 */
const MAX_SHAPES = 256;
const shapesByDb = new WeakMap<Db, Map<string, unknown>>();

export function byShape<Q extends object>(db: Db, shape: string, build: () => Q): Q {
  let shapes = shapesByDb.get(db);
  if (!shapes) shapesByDb.set(db, (shapes = new Map()));
  let query = shapes.get(shape) as Q | undefined;
  if (query === undefined) {
    query = compileRowMapper(build());
    if (shapes.size < MAX_SHAPES) shapes.set(shape, query);
  }
  return query;
}

/** The names of the values a request carries: its shape. */
export const shapeOf = (values: Record<string, unknown>, optional: readonly string[]) =>
  optional.filter((name) => values[name] !== undefined);
