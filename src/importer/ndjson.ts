import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { z } from 'zod';
import type { Db, Tx } from '../db/client.js';
import { zodIssuesToDetails } from '../errors/zod-details.js';

/**
 * One NDJSON record type (DESIGN section 5): its zod schema (SPEC field names) and how it is
 * upserted on `id` inside the import's transaction. Each domain registers its own in import.ts.
 */
export interface ImportType<S extends z.ZodType = z.ZodType> {
  type: string;
  schema: S;
  write(tx: Tx, appId: string, records: z.output<S>[]): Promise<void>;
}

export class ImportLineError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`line ${line}: ${message}`);
    this.name = 'ImportLineError';
  }
}

export interface ImportProgress {
  (lines: number, done: boolean): void;
}

const BATCH = 500;

/**
 * Reads the whole file inside one transaction: a bad line aborts the import naming its line
 * number and nothing is written. Records are written in batches per type, in file order
 * across types, so later lines may refer to earlier ones.
 */
export async function importNdjson(args: {
  db: Db;
  appId: string;
  input: Readable | string;
  types: readonly ImportType[];
  progress?: ImportProgress;
}): Promise<Record<string, number>> {
  const byName = new Map(args.types.map((t) => [t.type, t]));
  const counts: Record<string, number> = {};
  const stream = typeof args.input === 'string' ? createReadStream(args.input, 'utf8') : args.input;
  await args.db.transaction(async (tx) => {
    let pending: { type: ImportType; entries: Entry[]; firstLine: number; lastLine: number } | undefined;
    const flush = async () => {
      if (!pending) return;
      const batch = pending;
      pending = undefined;
      const entries = lastPerId(batch.entries);
      const write = (records: unknown[]) => tx.transaction((savepoint) => batch.type.write(savepoint, args.appId, records));
      try {
        // In a savepoint: a batch the database refuses can be tried again record by record.
        await write(entries.map((e) => e.record));
      } catch (error) {
        // Name the line (DESIGN section 5): one record at a time, in file order, until one is
        // refused. The import is aborted either way, so what these writes leave does not stay.
        for (const entry of entries) {
          try {
            await write([entry.record]);
          } catch (lineError) {
            throw new ImportLineError(entry.line, `${batch.type.type} could not be written: ${writeFailure(lineError)}`);
          }
        }
        // Only in combination (e.g. two lines of the batch that collide): the batch's lines.
        throw new ImportLineError(batch.firstLine, `${batch.type.type} could not be written (in the batch of lines ${batch.firstLine}-${batch.lastLine}): ${writeFailure(error)}`);
      }
    };
    let lineNo = 0;
    for await (const raw of createInterface({ input: stream, crlfDelay: Infinity })) {
      lineNo += 1;
      // A byte order mark some editors write at the start of a UTF-8 file is not part of line 1.
      const line = lineNo === 1 && raw.startsWith('\uFEFF') ? raw.slice(1) : raw;
      if (line.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        throw new ImportLineError(lineNo, 'not valid JSON');
      }
      const typeName = typeof value === 'object' && value !== null ? (value as { type?: unknown }).type : undefined;
      const importType = typeof typeName === 'string' ? byName.get(typeName) : undefined;
      if (!importType) {
        throw new ImportLineError(lineNo, `unknown record type ${JSON.stringify(typeName)} (expected one of ${[...byName.keys()].join(', ') || 'none registered'})`);
      }
      const { type: _type, ...fields } = value as Record<string, unknown>;
      const parsed = importType.schema.safeParse(fields);
      if (!parsed.success) {
        const details = zodIssuesToDetails(parsed.error.issues).map((d) => `${d.field || '(record)'}: ${d.message}`);
        throw new ImportLineError(lineNo, `invalid ${importType.type}: ${details.join('; ')}`);
      }
      if (pending && (pending.type !== importType || pending.entries.length >= BATCH)) await flush();
      pending ??= { type: importType, entries: [], firstLine: lineNo, lastLine: lineNo };
      pending.entries.push({ record: parsed.data, line: lineNo });
      pending.lastLine = lineNo;
      counts[importType.type] = (counts[importType.type] ?? 0) + 1;
      if (lineNo % 1000 === 0) args.progress?.(lineNo, false);
    }
    await flush();
    args.progress?.(lineNo, true);
  });
  return counts;
}

/** A parsed record and the line it came from. */
interface Entry {
  record: unknown;
  line: number;
}

/** Upsert on id: a later line wins, and one INSERT ... ON CONFLICT cannot touch a row twice. */
function lastPerId(entries: Entry[]): Entry[] {
  const byId = new Map<unknown, Entry>();
  const withoutId: Entry[] = [];
  for (const entry of entries) {
    const id = (entry.record as { id?: unknown }).id;
    if (id === undefined) withoutId.push(entry);
    else {
      byId.delete(id);
      byId.set(id, entry);
    }
  }
  return [...withoutId, ...byId.values()];
}

/**
 * The database's own words for a refused write. drizzle wraps them as "Failed query: <the SQL>
 * params: <every value of the batch>", up to 500 records of the file in one error line.
 */
function writeFailure(error: unknown): string {
  const cause = (error as { cause?: unknown }).cause;
  if (error instanceof Error && error.message.startsWith('Failed query:') && cause instanceof Error) return cause.message;
  return error instanceof Error ? error.message : String(error);
}
