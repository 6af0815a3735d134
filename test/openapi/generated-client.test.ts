import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importRecords, message } from '../analytics/fixtures.js';
import { useServer } from '../helpers/use-server.js';

// A client generated from the served document (openapi-typescript, openapi-fetch) needs no hand
// edits: key fields come out non-null, closed sets as unions, and a real call type-checks and works.
// The generated files live under node_modules/.cache so they resolve openapi-fetch as a client would.

const { server, tenant } = useServer({ tenant: { scopes: ['messages:read', 'video:read'] } });
const dir = join(process.cwd(), 'node_modules', '.cache', 'openapi-client-test');

const Equals = `type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;`;
const json = (path: string, method: string, status: number) => `paths['${path}']['${method}']['responses'][${status}]['content']['application/json']`;

/** Type assertions over the generated types: each line fails to compile if the document is loose. */
const usage = `import createClient from 'openapi-fetch';
import type { paths, webhooks } from './schema.js';
${Equals}
type Message = ${json('/analytics/{appId}/messages', 'get', 200)}['data'][number];
type Detail = ${json('/analytics/{appId}/messages/{id}', 'get', 200)}['data']['message'];
type Call = ${json('/video/{appId}/scheduled-calls/{id}', 'get', 200)}['data']['call'];
type VideoCall = ${json('/api/calls/{callId}', 'get', 200)}['data'];
export const id: Equals<Message['id'], string> = true;
export const status: Equals<Message['status'], 'pending' | 'queued' | 'sent' | 'delivered' | 'read' | 'failed' | 'flow_handled' | 'received'> = true;
export const direction: Equals<Message['direction'], 'inbound' | 'outbound'> = true;
export const sentAt: Equals<Message['sent_at'], string | null> = true;
export const readAt: Equals<Detail['read_at'], string | null> = true;
export const tags: Equals<${json('/analytics/{appId}/tags', 'get', 200)}['data'], string[]> = true;
export const callStatus: Equals<Call['status'], 'scheduled' | 'cancelled' | 'completed' | 'no_show'> = true;
export const cancelledAt: Equals<Call['cancelled_at'], string | undefined> = true;
export const videoStatus: Equals<VideoCall['status'], 'created' | 'active' | 'ended'> = true;
export const participantRole: Equals<VideoCall['participants'][number]['role'], 'host' | 'participant'> = true;
export const webhookType: Equals<webhooks['scheduled.cancelled']['post']['requestBody']['content']['application/json']['type'], 'scheduled.cancelled'> = true;

/** One typed call per listener, as a client would write it. */
export async function fetchMessage(baseUrl: string, token: string, appId: string, id: string) {
  const client = createClient<paths>({ baseUrl, headers: { authorization: \`Bearer \${token}\` } });
  const { data, error, response } = await client.GET('/analytics/{appId}/messages/{id}', { params: { path: { appId, id } } });
  const status: 'pending' | 'queued' | 'sent' | 'delivered' | 'read' | 'failed' | 'flow_handled' | 'received' | undefined = data?.data.message.status;
  const messageId: string | undefined = data?.data.message.id;
  return { status, messageId, error, code: response.status };
}

export async function lookupVideoCall(videoUrl: string, token: string, callId: string) {
  const client = createClient<paths>({ baseUrl: videoUrl, headers: { authorization: \`Bearer \${token}\` } });
  const { error, response } = await client.GET('/api/calls/{callId}', { params: { path: { callId } } });
  return { error, code: response.status };
}
`;

function compile(files: string[]) {
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    skipLibCheck: true,
    types: [],
  });
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

describe('a client generated from /api/v1/openapi.json', () => {
  beforeAll(async () => {
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    const doc = await (await fetch(`${server.url}/api/v1/openapi.json`)).json();
    await writeFile(join(dir, 'schema.ts'), astToString(await openapiTS(doc)));
    await writeFile(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    await writeFile(join(dir, 'usage.ts'), usage);
    await importRecords(server, tenant.appId, [message(1)]);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('types key fields non-null, closed sets as unions and webhook payloads, with no hand edits', () => {
    expect(compile([join(dir, 'usage.ts')])).toEqual([]);
  });

  it('would catch a nullable id: the same check fails to compile against a null', async () => {
    await writeFile(join(dir, 'loose.ts'), `import type { paths } from './schema.js';\n${Equals}\nexport const x: Equals<${json('/analytics/{appId}/messages', 'get', 200)}['data'][number]['id'], string | null> = true;\n`);
    expect(compile([join(dir, 'loose.ts')]).join('\n')).toMatch(/Type 'true' is not assignable to type 'false'/);
  });

  it('makes real calls with openapi-fetch on both listeners', async () => {
    type Answer = { code: number; error?: unknown; messageId?: string; status?: string };
    const { fetchMessage, lookupVideoCall } = (await import(join(dir, 'usage.ts'))) as {
      fetchMessage: (baseUrl: string, token: string, appId: string, id: string) => Promise<Answer>;
      lookupVideoCall: (videoUrl: string, token: string, callId: string) => Promise<Answer>;
    };
    const found = await fetchMessage(`${server.url}/api/v1`, tenant.accessToken, tenant.appId, message(1).id);
    expect(found).toMatchObject({ code: 200, messageId: message(1).id, status: message(1).status });
    const missing = await fetchMessage(`${server.url}/api/v1`, tenant.accessToken, tenant.appId, 'nope');
    expect(missing.code).toBe(404);
    expect(missing.error).toMatchObject({ error: { type: 'not_found' } });
    const video = await lookupVideoCall(server.videoUrl, tenant.accessToken, '00000000-0000-4000-8000-000000000000');
    expect(video.code).toBe(404);
    expect(video.error).toMatchObject({ ok: false, error: { type: 'not_found' } });
  });
});
