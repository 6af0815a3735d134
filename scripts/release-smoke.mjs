// The second half of scripts/release-smoke.sh, run inside the pruned production install: starts
// `node dist/src/main.js` on a fresh PostgreSQL database and Redis, then over HTTP a token, a REST
// list, a GraphQL query, a live timeline event after a PATCH, and CLI commands from dist/; then
// `npm start`'s default, the embedded database with the demo app, from the banner to a REST list.
// Built-in modules and production dependencies only: nothing else is installed here.
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';

const adminUrl = process.env.SMOKE_DATABASE_URL;
const redisUrl = process.env.SMOKE_REDIS_URL;
if (!adminUrl || !redisUrl) throw new Error('SMOKE_DATABASE_URL and SMOKE_REDIS_URL are required');

const step = (text) => process.stdout.write(`-- ${text}\n`);
class SmokeError extends Error {}
const check = (ok, message) => {
  if (!ok) throw new SmokeError(message);
};

const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

const dbName = `sb_smoke_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
const dbUrl = Object.assign(new URL(adminUrl), { pathname: `/${dbName}` }).toString();
const [port, videoPort] = [await freePort(), await freePort()];
const base = `http://127.0.0.1:${port}`;
const env = {
  ...process.env,
  DATABASE_URL: dbUrl,
  REDIS_URL: redisUrl,
  PORT: String(port),
  VIDEO_PORT: String(videoPort),
  HOST: '127.0.0.1',
  DEMO: '0',
  METRICS: '1',
  LOG_LEVEL: 'warn',
};

/** A CLI command from dist/: one JSON object on stdout, exit 0 (the CLI contract, docs/cli.md). */

function cli(args, { viaNpm = false } = {}) {
  const [command, argv] = viaNpm ? ['npm', ['run', '-s', 'cli', '--', ...args]] : [process.execPath, ['dist/src/cli/main.js', ...args]];
  const result = spawnSync(command, argv, { env, encoding: 'utf8', timeout: 60_000 });
  const shown = `${viaNpm ? 'npm run cli --' : 'node dist/src/cli/main.js'} ${args.join(' ')}`;
  check(result.status === 0, `${shown} exited ${result.status}: ${result.stderr || result.error}`);
  const lines = result.stdout.trim().split('\n');
  check(lines.length === 1, `${shown} printed ${lines.length} lines on stdout, not one JSON object: ${result.stdout}`);
  return JSON.parse(lines[0]);
}

async function call(method, url, { token, json } = {}) {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(json ? { 'content-type': 'application/json' } : {}) },
    body: json ? JSON.stringify(json) : undefined,
  });
  const text = await res.text();
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: res.status, body, text };
}

async function graphql(token, query, variables) {
  const res = await call('POST', '/graphql', { token, json: { query, variables } });
  check(res.status === 200 && !res.body.errors, `GraphQL ${query.slice(0, 40)}...: ${res.status} ${res.text}`);
  return res.body.data;
}

/** Reads SSE frames from a fetch body until `predicate` matches one `next` payload. */
async function awaitEvent(response, predicate, timeoutMs) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const timer = setTimeout(() => reader.cancel().catch(() => {}), timeoutMs);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return undefined;
      buffer += decoder.decode(value, { stream: true });
      let end;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = frame
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).trimStart())
          .join('\n');
        if (!data) continue;
        const payload = JSON.parse(data);
        if (predicate(payload)) return payload;
      }
    }
  } finally {
    clearTimeout(timer);
    reader.cancel().catch(() => {});
  }
}

/**
 * `npm start`'s default: no DATABASE_URL, an embedded database under DATA_DIR and a demo app whose
 * credentials the banner prints. The banner's client gets a token and reads the demo's messages.
 */
async function smokeEmbedded() {
  const [embeddedPort, embeddedVideoPort] = [await freePort(), await freePort()];
  const dataDir = mkdtempSync(path.join(tmpdir(), 'sb-smoke-pglite-'));
  const embeddedEnv = { ...env, PORT: String(embeddedPort), VIDEO_PORT: String(embeddedVideoPort), DATA_DIR: dataDir, DEMO: '1', LOG_LEVEL: 'info' };
  delete embeddedEnv.DATABASE_URL;
  delete embeddedEnv.REDIS_URL;
  const child = spawn(process.execPath, ['dist/src/main.js'], { env: embeddedEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  const embeddedBase = `http://127.0.0.1:${embeddedPort}`;
  try {
    let banner;
    for (let i = 0; i < 240 && !banner; i++) {
      const early = await Promise.race([exited, new Promise((r) => setTimeout(() => r(undefined), 250))]);
      check(early === undefined, `the embedded server exited with ${early}: ${output}`);
      banner = /client id:\s+(\S+)\s+client secret:\s+(\S+)/.exec(output);
    }
    check(banner, `no demo banner within 60 s: ${output}`);
    const res = await fetch(`${embeddedBase}/api/v1/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: banner[1], client_secret: banner[2] }),
    });
    const token = (await res.json()).data?.access_token;
    check(res.status === 200 && token, `embedded token: ${res.status}`);
    const appId = /app id:\s+(\S+)/.exec(output)?.[1];
    const list = await fetch(`${embeddedBase}/api/v1/analytics/${appId}/messages?limit=2`, { headers: { authorization: `Bearer ${token}` } });
    const body = await list.json();
    check(list.status === 200 && body.data?.length === 2, `embedded GET messages: ${list.status} ${JSON.stringify(body)}`);
  } finally {
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
let server;
let serverLog = '';
const started = Date.now();
try {
  step(`database ${dbName}`);
  await admin.unsafe(`create database ${dbName}`);

  step('CLI from dist/: apps create, clients create (migrates the new database)');
  const { appId } = cli(['apps', 'create', '--name', 'Release smoke']);
  const scopes = 'messages:read,analytics:read,scheduling:read,scheduling:write';
  const client = cli(['clients', 'create', '--app', appId, '--scopes', scopes, '--name', 'smoke']);

  step(`node dist/src/main.js on port ${port}`);
  server = spawn(process.execPath, ['dist/src/main.js'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  server.stdout.on('data', (d) => (serverLog += d));
  server.stderr.on('data', (d) => (serverLog += d));
  const exited = new Promise((resolve) => server.once('exit', (code) => resolve(code)));
  let ready = false;
  for (let i = 0; i < 120 && !ready; i++) {
    const early = await Promise.race([exited, new Promise((r) => setTimeout(() => r(undefined), 250))]);
    check(early === undefined, `the server exited with ${early} before it was ready`);
    ready = await fetch(`${base}/readyz`).then((r) => r.ok, () => false);
  }
  check(ready, 'the server did not answer /readyz within 30 s');

  step('token');
  const tokenRes = await call('POST', '/api/v1/oauth/token', {
    json: { grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret },
  });
  check(tokenRes.status === 200 && tokenRes.body.data?.access_token, `token: ${tokenRes.status} ${tokenRes.text}`);
  const token = tokenRes.body.data.access_token;

  step('REST list');
  const list = await call('GET', `/api/v1/analytics/${appId}/messages?limit=5`, { token });
  check(list.status === 200 && Array.isArray(list.body.data), `GET messages: ${list.status} ${list.text}`);

  step('GraphQL: saveAgent, then a query');
  const everyDay = Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, [['00:00', '24:00']]]));
  const { saveAgent } = await graphql(
    token,
    'mutation($app: UUID!, $input: AgentInput!) { saveAgent(appId: $app, input: $input) { id: agentId } }',
    { app: appId, input: { name: 'Smoke agent', timezone: 'UTC', workingHours: everyDay } },
  );
  const queried = await graphql(token, 'query($app: UUID!, $id: UUID!) { agent(appId: $app, id: $id) { id name timezone } }', { app: appId, id: saveAgent.id });
  check(queried.agent?.name === 'Smoke agent', `agent query: ${JSON.stringify(queried)}`);

  step('REST: book a call');
  const at = new Date(Date.now() + 3 * 86_400_000);
  at.setUTCHours(10, 0, 0, 0);
  const booked = await call('POST', `/api/v1/video/${appId}/scheduled-calls`, {
    token,
    json: { scheduledAtUtc: at.toISOString(), durationMinutes: 30, guestName: 'Smoke guest', assignedAgentId: saveAgent.id },
  });
  check(booked.status === 201 || booked.status === 200, `book: ${booked.status} ${booked.text}`);
  const callId = booked.body.data.call.id;

  step('SSE: subscribe to the call timeline, PATCH, receive the event');
  const stream = await fetch(`${base}/graphql/stream`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({
      query: 'subscription($app: UUID!, $id: UUID!) { scheduledCallTimeline(appId: $app, callId: $id) { id eventType } }',
      variables: { app: appId, id: callId },
    }),
  });
  check(stream.status === 200 && (stream.headers.get('content-type') ?? '').startsWith('text/event-stream'), `subscribe: ${stream.status} ${stream.headers.get('content-type')}`);
  // The response starts before the subscription is registered: give it a moment.
  await new Promise((r) => setTimeout(r, 500));
  const event = awaitEvent(stream, (p) => p.data?.scheduledCallTimeline?.eventType === 'updated' || p.errors, 15_000);
  const patched = await call('PATCH', `/api/v1/video/${appId}/scheduled-calls/${callId}`, { token, json: { guestName: 'Smoke guest, renamed' } });
  check(patched.status === 200, `PATCH: ${patched.status} ${patched.text}`);
  const received = await event;
  check(received?.data?.scheduledCallTimeline?.eventType === 'updated', `no 'updated' timeline event within 15 s: ${JSON.stringify(received)}`);

  step('metrics');
  const metrics = await call('GET', '/metrics');
  check(metrics.status === 200 && metrics.text.includes('switchboard_http_requests_total'), `/metrics: ${metrics.status}`);

  step('pages served from node_modules: Swagger UI, GraphiQL');
  const asset = await fetch(`${base}/docs/assets/swagger-ui-bundle.js`);
  check(asset.status === 200 && (await asset.text()).length > 100_000, `/docs/assets/swagger-ui-bundle.js: ${asset.status}`);
  const graphiql = await fetch(`${base}/graphql`, { headers: { accept: 'text/html' } });
  check(graphiql.status === 200 && /graphiql/i.test(await graphiql.text()), `GraphiQL page: ${graphiql.status}`);

  step('CLI through npm run cli (precli must not rebuild): import an NDJSON file');
  const file = path.join(tmpdir(), `${dbName}.ndjson`);
  writeFileSync(file, `${JSON.stringify({ type: 'agent', id: randomUUID(), name: 'Imported agent', timezone: 'Europe/London', working_hours: everyDay })}\n`);
  const imported = cli(['import', '--app', appId, file], { viaNpm: true });
  check(imported.agent === 1, `import printed ${JSON.stringify(imported)}, not {"agent":1}`);

  step('node dist/src/main.js on embedded PGlite with the demo app (the npm start default)');
  await smokeEmbedded();

  process.stdout.write(`release smoke: every check passed in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
} catch (error) {
  process.stderr.write(`\nrelease smoke: ${error instanceof SmokeError ? error.message : error.stack}\n`);
  if (serverLog) process.stderr.write(`--- server output ---\n${serverLog}\n`);
  process.exitCode = 1;
} finally {
  if (server && server.exitCode === null) {
    const gone = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    await Promise.race([gone, new Promise((r) => setTimeout(r, 10_000))]);
    if (server.exitCode === null) server.kill('SIGKILL');
  }
  await admin.unsafe(`drop database if exists ${dbName} with (force)`).catch((e) => process.stderr.write(`could not drop ${dbName}: ${e.message}\n`));
  await admin.end({ timeout: 5 });
}
