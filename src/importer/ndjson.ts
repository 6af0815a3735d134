import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import type { z } from 'zod';
import type { Db, Tx } from '../db/client.js';
import { zodIssuesToDetails } from '../errors/zod-details.js';
import { systemClock, type Clock } from '../time/clock.js';

/**
 * One NDJSON record type: its zod schema (the API's snake_case field names) and how it is
 * upserted on `id` inside the import's transaction. Each domain registers its own in import.ts.
 */
export interface ImportType<S extends z.ZodType = z.ZodType> {
  type: string;
  /** Or the schema built once per import from its clock, for rules that depend on "now". */
  schema: S | ((now: () => Date) => S);
  /** `now`: the time of the batch's created/updated columns, from the runtime's clock. */
  write(tx: Tx, appId: string, records: z.output<S>[], now: Date): Promise<void>;
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
  clock?: Clock;
}): Promise<Record<string, number>> {
  const clock = args.clock ?? systemClock;
  const byName = new Map(args.types.map((t) => [t.type, t]));
  const now = () => clock.now();
  const schemas = new Map(args.types.map((t) => [t, typeof t.schema === 'function' ? t.schema(now) : t.schema]));
  const counts: Record<string, number> = {};
  // Bytes, not text: each line is decoded on its own, so invalid UTF-8 names its line.
  const stream = typeof args.input === 'string' ? createReadStream(args.input) : args.input;
  await args.db.transaction(async (tx) => {
    let pending: { type: ImportType; entries: Entry[]; firstLine: number; lastLine: number } | undefined;
    const flush = async () => {
      if (!pending) return;
      const batch = pending;
      pending = undefined;
      const entries = lastPerId(batch.entries);
      const write = (records: unknown[]) => tx.transaction((savepoint) => batch.type.write(savepoint, args.appId, records, clock.now()));
      try {
        // In a savepoint: a batch the database refuses can be tried again record by record.
        await write(entries.map((e) => e.record));
      } catch (error) {
        // Name the refused line: one record at a time, in file order, until one is
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
    for await (const raw of ndjsonLines(stream)) {
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
      const parsed = schemas.get(importType)!.safeParse(fields);
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

/**
 * The longest line the importer takes, in bytes. A record is an object of the API's fields (the
 * API takes bodies up to 1 MiB); a line past this is refused with its number before it is
 * held whole. Unbounded, a line over V8's longest string would end the CLI with a stack trace.
 */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

const NEWLINE = 0x0a;

/**
 * The lines of an NDJSON stream (LF or CRLF), each decoded as strict UTF-8: invalid bytes are
 * refused with the line's number rather than stored as U+FFFD. A stream of text chunks (a
 * caller's own Readable in string mode) is taken as already decoded.
 */
export async function* ndjsonLines(stream: AsyncIterable<Buffer | string>): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let parts: Buffer[] = [];
  let size = 0;
  let lineNo = 0;
  const take = (): string => {
    lineNo += 1;
    let bytes = parts.length === 1 ? parts[0]! : Buffer.concat(parts, size);
    parts = [];
    size = 0;
    if (bytes.length > 0 && bytes[bytes.length - 1] === 0x0d) bytes = bytes.subarray(0, bytes.length - 1);
    try {
      return decoder.decode(bytes);
    } catch {
      throw new ImportLineError(lineNo, 'not valid UTF-8 (the file must be UTF-8 encoded)');
    }
  };
  const tooLong = () => new ImportLineError(lineNo + 1, `longer than ${MAX_LINE_BYTES} bytes (the most one record may take)`);
  for await (const chunk of stream) {
    let buffer = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    for (let at = buffer.indexOf(NEWLINE); at !== -1; at = buffer.indexOf(NEWLINE)) {
      if (size + at > MAX_LINE_BYTES) throw tooLong();
      parts.push(buffer.subarray(0, at));
      size += at;
      yield take();
      buffer = buffer.subarray(at + 1);
    }
    if (buffer.length > 0) {
      if (size + buffer.length > MAX_LINE_BYTES) throw tooLong();
      // A copy: the stream may reuse its chunk's memory.
      parts.push(Buffer.from(buffer));
      size += buffer.length;
    }
  }
  if (size > 0) yield take();
}
