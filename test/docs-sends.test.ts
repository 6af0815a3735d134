import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { bootstrapDemo } from '../src/demo/bootstrap.js';
import { request } from './helpers/http.js';
import { issueToken } from './helpers/server.js';
import { useServer } from './helpers/use-server.js';

/**
 * The examples of docs/sends.md, read from the file itself and sent as written to a demo app
 * (what `npm start` creates), so an example that names data the demo lacks, or a body the
 * service refuses, fails here.
 */
interface Curl {
  comment: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** The words of a shell command: single quotes literal, double quotes with $VARs, `\` + newline joins lines. */
function shellWords(command: string, vars: Record<string, string>): string[] {
  const words: string[] = [];
  let word: string | undefined;
  const expand = (text: string) => text.replace(/\$([A-Z]+)/g, (_, name: string) => vars[name] ?? `$${name}`);
  for (let i = 0; i < command.length; i++) {
    const ch = command[i]!;
    if (ch === '\\' && command[i + 1] === '\n') {
      i++;
    } else if (/\s/.test(ch)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (ch === "'") {
      const end = command.indexOf("'", i + 1);
      word = (word ?? '') + command.slice(i + 1, end);
      i = end;
    } else if (ch === '"') {
      const end = command.indexOf('"', i + 1);
      word = (word ?? '') + expand(command.slice(i + 1, end));
      i = end;
    } else {
      const match = /^\$([A-Z]+)/.exec(command.slice(i));
      if (match) {
        word = (word ?? '') + expand(match[0]);
        i += match[0].length - 1;
      } else {
        word = (word ?? '') + ch;
      }
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** The curl commands of docs/sends.md (its sh blocks), each with the comment above it. */
function documentedSends(vars: Record<string, string>): Curl[] {
  const doc = readFileSync(path.join(import.meta.dirname, '..', 'docs', 'sends.md'), 'utf8');
  const curls: Curl[] = [];
  for (const [, block] of doc.matchAll(/```sh\n([\s\S]*?)```/g)) {
    let comment = '';
    // A command runs from `curl` to the next comment line (bodies span lines inside quotes).
    for (const chunk of block!.split(/\n(?=#|curl )/)) {
      if (chunk.startsWith('#')) {
        comment = chunk.split('\n')[0]!;
        continue;
      }
      const words = shellWords(chunk, vars);
      const headers: Record<string, string> = {};
      let body = '';
      let url = '';
      for (let i = 1; i < words.length; i++) {
        const w = words[i]!;
        if (w === '-H') {
          const [name, ...value] = words[++i]!.split(':');
          headers[name!.trim().toLowerCase()] = value.join(':').trim();
        } else if (w === '-d') body = words[++i]!;
        else if (w.startsWith('http')) url = w;
      }
      curls.push({ comment, path: new URL(url).pathname, headers, body });
    }
  }
  return curls;
}

const { server } = useServer();
let appId: string;
let token: string;
beforeAll(async () => {
  const demo = (await bootstrapDemo(server.runtime))!;
  appId = demo.appId;
  token = await issueToken(server.url, demo.clientId, demo.clientSecret);
});

describe('the examples of docs/sends.md, as written, on the demo app', () => {
  it('the inbound message opens the window; the Flow, Product List and template sends go out; the reply and status apply', async () => {
    const curls = documentedSends({ BASE: server.url, A: appId, T: token });
    const find = (pattern: RegExp) => {
      const found = curls.filter((c) => pattern.test(c.comment));
      expect(found, `one docs/sends.md example under a comment matching ${pattern}`).toHaveLength(1);
      return found[0]!;
    };
    const send = async (curl: Curl, replace: Record<string, string> = {}) => {
      let body = curl.body;
      for (const [from, to] of Object.entries(replace)) body = body.replace(from, to);
      const { authorization, ...headers } = curl.headers;
      expect(authorization).toBe(`Bearer ${token}`);
      return request(`${server.url}${curl.path}`, { token, headers, body });
    };
    expect(curls.length).toBeGreaterThanOrEqual(6);

    // The inbound section comes later in docs/sends.md, but the window must be open before the sends.
    const opened = await send(find(/inbound message: stored/i));
    expect(opened.status, JSON.stringify(opened.body)).toBe(200);
    expect(opened.body.data.applied).toBe(true);

    const flow = await send(find(/^# Flow/));
    expect(flow.status, JSON.stringify(flow.body)).toBe(202);
    expect(flow.body.data.message).toMatchObject({ status: 'queued', kind: 'flow', flow_token: 'bk-4711' });

    const productList = await send(find(/^# Product List/));
    expect(productList.status, JSON.stringify(productList.body)).toBe(202);
    expect(productList.body.data.message.product_item_count).toBe(2);

    const template = await send(find(/^# Template/));
    expect(template.status, JSON.stringify(template.body)).toBe(202);
    expect(template.body.data.message.kind).toBe('template');

    const reply = await send(find(/submitted Flow/i));
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.data.linked_message_id).toBe(flow.body.data.message.id);
    expect(reply.body.data.message.status).toBe('flow_handled');

    // docs/sends.md elides the provider's id ("sandbox.…"): the template send's own.
    const statusCurl = find(/status update/i);
    expect(statusCurl.body).toContain('"sandbox.…"');
    const status = await send(statusCurl, { '"sandbox.…"': JSON.stringify(template.body.data.message.provider_message_id) });
    expect(status.status, JSON.stringify(status.body)).toBe(200);
    expect(status.body.data.applied).toBe(true);
    expect(status.body.data.message.status).toBe('delivered');
  });
});
