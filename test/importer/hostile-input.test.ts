import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable, type Writable } from 'node:stream';
import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignImport, messageImport } from '../../src/analytics/import.js';
import { messages } from '../../src/analytics/tables.js';
import { importNdjson, MAX_LINE_BYTES, ndjsonLines } from '../../src/importer/ndjson.js';
import { campaign, message } from '../analytics/fixtures.js';
import { runCli } from '../helpers/cli.js';
import type { Tenant } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';

// Input an import must refuse, naming the line, with nothing written.

const { server } = useServer();
let a: Tenant;
let b: Tenant;
beforeAll(async () => {
  [a, b] = [await server.tenant(), await server.tenant()];
});

const lines = async (chunks: (Buffer | string)[]) => {
  const out: string[] = [];
  for await (const line of ndjsonLines(Readable.from(chunks))) out.push(line);
  return out;
};
const run = (appId: string, input: Readable) => importNdjson({ db: server.runtime.database.db, appId, input, types: [messageImport, campaignImport] });
const messageCount = async (appId: string) => (await server.runtime.database.db.select({ n: count() }).from(messages).where(eq(messages.appId, appId)))[0]!.n;

describe('NDJSON lines', () => {
  it('splits LF and CRLF lines across chunk boundaries, the last line without a newline too', async () => {
    expect(await lines([Buffer.from('ab\r\nc'), Buffer.from('d\n\nxé'.slice(0, 4)), Buffer.from('é')])).toEqual(['ab', 'cd', '', 'xé']);
  });

  it('a multi-byte character split across chunks is one character', async () => {
    const bytes = Buffer.from('{"n":"é"}\n');
    expect(await lines([bytes.subarray(0, 8), bytes.subarray(8)])).toEqual(['{"n":"é"}']);
  });

  it('invalid UTF-8 is refused naming its line, not stored as U+FFFD', async () => {
    const bad = Buffer.concat([Buffer.from('{"a":1}\n{"b":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}\n')]);
    await expect(lines([bad])).rejects.toThrow(/^line 2: not valid UTF-8/);
  });

  it(`a line over ${MAX_LINE_BYTES} bytes is refused naming its line, before it is held whole`, async () => {
    let sent = 0;
    async function* endless() {
      yield Buffer.from('{"type":"campaign"}\n');
      const chunk = Buffer.alloc(1024 * 1024, 0x61);
      // Ten times the limit is offered; reading stops at the limit.
      for (let i = 0; i < (10 * MAX_LINE_BYTES) / chunk.length; i++) {
        sent += chunk.length;
        yield chunk;
      }
    }
    const out: string[] = [];
    await expect(
      (async () => {
        for await (const line of ndjsonLines(endless())) out.push(line);
      })(),
    ).rejects.toThrow(new RegExp(`^line 2: longer than ${MAX_LINE_BYTES} bytes`));
    expect(out).toEqual(['{"type":"campaign"}']);
    expect(sent).toBeLessThanOrEqual(MAX_LINE_BYTES + 1024 * 1024);
  });
});

describe('message campaign_id across apps', () => {
  it("a message naming another app's campaign is refused naming its line; nothing is written", async () => {
    const theirs = campaign(1);
    await run(b.appId, Readable.from([`${JSON.stringify(theirs)}\n`]));
    const text = [message(1), message(2, { campaign_id: theirs.id })].map((r) => JSON.stringify(r)).join('\n');
    await expect(run(a.appId, Readable.from([text]))).rejects.toThrow(/^line 2: message could not be written: campaign_id .* is a campaign of another app/);
    expect(await messageCount(a.appId)).toBe(0);
  });

  it('its own campaign, or one with the same id in both apps, is taken', async () => {
    const ours = campaign(2);
    const text = [ours, message(3, { campaign_id: ours.id })].map((r) => JSON.stringify(r)).join('\n');
    await run(b.appId, Readable.from([`${JSON.stringify(ours)}\n`]));
    expect(await run(a.appId, Readable.from([text]))).toEqual({ campaign: 1, message: 1 });
  });
});

describe('the CLI', { timeout: 180_000 }, () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'sb-import-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  const cli = (args: string[], feed?: (stdin: Writable) => void) => runCli(dataDir, args, { env: { DEMO: '0' }, stdin: feed });

  it('an over-long line on stdin: exit 1, one line naming it, no stack trace', async () => {
    const created = await cli(['apps', 'create', '--name', 'Import']);
    const { appId } = JSON.parse(created.stdout) as { appId: string };
    const res = await cli(['import', '--app', appId, '-'], (stdin) => {
      stdin.write('\n');
      const chunk = Buffer.alloc(1024 * 1024, 0x61);
      let written = 0;
      const pump = () => {
        while (written < MAX_LINE_BYTES + 2 * chunk.length) {
          written += chunk.length;
          if (!stdin.write(chunk)) return void stdin.once('drain', pump);
        }
        stdin.end();
      };
      pump();
    });
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(new RegExp(`line 2: longer than ${MAX_LINE_BYTES} bytes`));
    expect(res.stderr).not.toMatch(/\n\s+at /);
  });
});
