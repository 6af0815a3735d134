import { and, inArray, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { brandWithType, type ObjectRef } from '@pothos/core';
import type { Scope } from '../auth/scopes.js';
import { AppError } from '../errors/app-error.js';
import { builder, UUID_PATTERN, type Context } from './builder.js';
import { nodeTypes } from './node-id.js';

/** Where a Node type's rows live, and what reading them needs. */
export interface NodeSource<T> {
  table: PgTable;
  /** The app column; for App itself, its id. */
  appId: PgColumn;
  id: PgColumn;
  /** Whether `id` is a uuid column: other raw ids never reach the query (PostgreSQL would refuse them). */
  uuid: boolean;
  /** The scope its root fields need; a token without it is refused, as there. */
  scope?: Scope;
  /** Rows the type's lists leave out (a deleted agent). */
  visible?: SQL;
  /**
   * The column (and its value on a row) that the id is unique within, besides the app: a video
   * participant's id is unique per call. Its value joins the global id before the raw id.
   */
  parent?: { column: PgColumn; of: (row: T) => string };
  /** Reads the rows matching `where` when the type is more than its table's row (a join, a computed field); still one query. */
  rows?: (ctx: Context, where: SQL) => Promise<T[]>;
  appIdOf: (row: T) => string;
  rawIdOf: (row: T) => string;
}

/**
 * Makes `ref` a Node: its `id` is the global id (plugin-relay encoding of `Type:appId:rawId`, the
 * app in it because some raw ids are unique within an app only), and `node`/`nodes` load it
 * through `source` restricted to the token's apps.
 */
export function asNode<T extends object>(ref: ObjectRef<any, T>, source: NodeSource<T>): void {
  nodeTypes.add(ref.name);
  builder.nodeRef(ref as never, {
    id: { resolve: (row: T) => globalKey(source, row) },
    // Branded here, as they load: Pothos brands them only after the whole batch, and another
    // field of the operation asking for the same id is handed the cached row before that. The
    // brand is the type's name, as Pothos writes it (its brand cannot be redefined to another value).
    loadMany: async (keys: string[], ctx: Context) => {
      const rows = await loadNodes(ctx, source, keys);
      for (const row of rows) brandWithType(row, ref.name as never);
      return rows;
    },
  } as never);
}

function globalKey<T>(source: NodeSource<T>, row: T): string {
  const app = source.appIdOf(row);
  const raw = source.rawIdOf(row);
  if (source.appId === source.id) return raw;
  return source.parent ? `${app}:${source.parent.of(row)}:${raw}` : `${app}:${raw}`;
}

/**
 * One query per type for the whole batch. A key of an app the token may not read is asked for
 * like any other and filtered out by the same query: it answers null exactly as an unknown id.
 */
async function loadNodes<T>(ctx: Context, source: NodeSource<T>, keys: readonly string[]): Promise<(T | null)[]> {
  const auth = ctx.auth;
  if (!auth) throw new AppError('unauthorized', 'Missing bearer token');
  if (source.scope && !auth.scopes.has(source.scope)) throw new AppError('forbidden', 'Missing scope or no access to this app');
  const parsed = keys.map((key) => parseKey(source, key));
  const found = parsed.flatMap((p) => (p ? [p] : []));
  const rawIds = [...new Set(found.map((p) => p.raw))];
  const apps = [...auth.apps];
  if (rawIds.length === 0 || apps.length === 0) return keys.map(() => null);
  const conditions = [inArray(source.appId, apps), inArray(source.id, rawIds), ...(source.visible ? [source.visible] : [])];
  if (source.parent) conditions.push(inArray(source.parent.column, [...new Set(found.map((p) => p.parent!))]));
  const where = and(...conditions)!;
  const rows = source.rows ? await source.rows(ctx, where) : ((await ctx.runtime.database.db.select().from(source.table as never).where(where)) as T[]);
  const keyOf = (app: string, parent: string | undefined, raw: string) => (parent === undefined ? `${app}:${raw}` : `${app}:${parent}:${raw}`);
  const byKey = new Map(rows.map((row) => [keyOf(source.appIdOf(row), source.parent?.of(row), source.rawIdOf(row)), row]));
  return parsed.map((p) => (p ? (byKey.get(keyOf(p.app, p.parent, p.raw)) ?? null) : null));
}

function parseKey<T>(source: NodeSource<T>, key: string): { app: string; parent?: string; raw: string } | undefined {
  if (source.appId === source.id) return UUID_PATTERN.test(key) ? { app: key.toLowerCase(), raw: key.toLowerCase() } : undefined;
  const at = key.indexOf(':');
  if (at === -1) return undefined;
  const app = key.slice(0, at);
  let raw = key.slice(at + 1);
  let parent: string | undefined;
  if (source.parent) {
    // Parents are uuids: the first colon after the app ends it.
    const next = raw.indexOf(':');
    if (next === -1) return undefined;
    parent = raw.slice(0, next);
    raw = raw.slice(next + 1);
    if (!UUID_PATTERN.test(parent)) return undefined;
    parent = parent.toLowerCase();
  }
  if (!UUID_PATTERN.test(app) || raw === '' || (source.uuid && !UUID_PATTERN.test(raw))) return undefined;
  return { app: app.toLowerCase(), parent, raw: source.uuid ? raw.toLowerCase() : raw };
}

