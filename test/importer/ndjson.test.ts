import { Readable } from 'node:stream';
import { count, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { apps } from '../../src/apps/tables.js';
import { importNdjson, type ImportType } from '../../src/importer/ndjson.js';
import { useServer } from '../helpers/use-server.js';

// The framework with a test-only record type; each domain tests its own types.
const widget: ImportType = {
  type: 'widget',
  schema: z.object({ id: z.uuid(), name: z.string().min(1) }),
  write: async (tx, _appId, records: { id: string; name: string }[]) => {
    await tx
      .insert(apps)
      .values(records)
      .onConflictDoUpdate({ target: apps.id, set: { name: apps.name } });
  },
};

const { server } = useServer();

const run = (text: string) =>
  importNdjson({ db: server.runtime.database.db, appId: 'unused', input: Readable.from([text]), types: [widget] });
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const appCount = async () => (await server.runtime.database.db.select({ n: count() }).from(apps))[0]!.n;

describe('importNdjson', () => {
  it('counts records per type, skips blank lines and upserts on id', async () => {
    const text = [uuid(1), uuid(2), uuid(1)].map((id, i) => JSON.stringify({ type: 'widget', id, name: `w${i}` })).join('\n\n');
    expect(await run(text)).toEqual({ widget: 3 });
    const rows = await server.runtime.database.db.select().from(apps).where(eq(apps.id, uuid(1)));
    expect(rows).toHaveLength(1);
  });

  it('a byte order mark at the start of the file is not part of line 1', async () => {
    expect(await run(`\uFEFF${JSON.stringify({ type: 'widget', id: uuid(30), name: 'bom' })}`)).toEqual({ widget: 1 });
  });

  it.each([
    ['not JSON', `{"type":"widget","id":"${uuid(10)}","name":"a"}\n{oops`, /line 2: not valid JSON/],
    ['unknown type', `{"type":"widget","id":"${uuid(10)}","name":"a"}\n{"type":"gadget"}`, /line 2: unknown record type "gadget"/],
    ['bad field', `{"type":"widget","id":"${uuid(10)}","name":"a"}\n{"type":"widget","id":"nope","name":"b"}`, /line 2: invalid widget: id:/],
    ['missing field', `{"type":"widget","id":"${uuid(10)}"}`, /line 1: invalid widget: name: Required/],
  ])('%s aborts the whole file, naming the line, with nothing written', async (_name, text, message) => {
    const before = await appCount();
    await expect(run(text)).rejects.toThrow(message);
    expect(await appCount()).toBe(before);
  });

  it('a record the database refuses is named by its own line, in the database\'s words, not the SQL and its values', async () => {
    const before = await appCount();
    // Line 3 of one batch of 4: a name PostgreSQL text cannot hold (NUL; the test type checks nothing).
    const names = ['ok-1', 'ok-2', 'bad\u0000name', 'ok-4'];
    const text = names.map((name, i) => JSON.stringify({ type: 'widget', id: uuid(20 + i), name })).join('\n');
    const error = await run(text).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.message).toMatch(/^line 3: widget could not be written: /);
    expect(error?.message).not.toMatch(/Failed query|params:|ok-2/);
    expect(await appCount()).toBe(before);
  });
});
