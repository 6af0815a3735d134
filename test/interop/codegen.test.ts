import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { generate } from '@graphql-codegen/cli';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importRecords, message } from '../analytics/fixtures.js';
import { agent, agentIdOf, allDay, api, booking, futureDay } from '../scheduling/fixtures.js';
import { gql } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';

// What a frontend gets from GraphQL Code Generator on schema.graphql: enums as string unions,
// non-null fields as required properties, and types that real answers of the server satisfy
// (checked by tsc, which must also refuse a value outside an enum).

const root = path.resolve(import.meta.dirname, '../..');
const { server, tenant } = useServer({ tenant: true });

const MESSAGES = `query Messages($app: UUID!, $status: MessageStatus) {
  messages(appId: $app, first: 5, status: $status) {
    limit
    pageInfo { hasNextPage endCursor }
    nodes { id messageId status direction channel sentAt errorMessage cost createdAt }
  }
}`;
const CALL = `query CallWithTimeline($app: UUID!, $id: UUID!) {
  scheduledCall(appId: $app, id: $id) {
    callId status scheduledAt guestPhone guestIntakeNotes
    events { eventId eventType actorType payload createdAt }
  }
}`;
const UPDATE = `mutation UpdateCall($app: UUID!, $id: UUID!, $input: UpdateScheduledCallInput!) {
  updateScheduledCall(appId: $app, id: $id, input: $input) { callId status guestName guestIntakeNotes }
}`;
const operations = [MESSAGES, CALL, UPDATE].join('\n\n');

// The codegen.ts a frontend would use (docs/graphql.md, "Code generation"), minus the file paths:
// every schema type with `typescript`, and each operation's own types (the enums and inputs it
// uses included) with `typescript-operations`, which since v6 needs no other plugin's output.
const scalars = { DateTime: 'string', UUID: 'string', JSON: 'unknown' };
const schemaTypes = { plugins: ['typescript'], config: { enumsAsTypes: true, scalars, strictScalars: true } };
const operationTypes = { plugins: ['typescript-operations'], config: { enumType: 'string-literal', scalars, strictScalars: true } };

let dir: string;
let schemaTs: string;
let generated: string;
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'codegen-'));
  writeFileSync(path.join(dir, 'operations.graphql'), operations);
  const outputs = await generate(
    {
      cwd: root,
      schema: path.join(root, 'schema.graphql'),
      documents: path.join(dir, 'operations.graphql'),
      generates: { [path.join(dir, 'schema-types.ts')]: schemaTypes, [path.join(dir, 'operations.ts')]: operationTypes },
      silent: true,
    },
    false,
  );
  const content = (file: string) => outputs.find((o: { filename: string; content: string }) => o.filename.endsWith(file))!.content;
  schemaTs = content('schema-types.ts');
  generated = content('operations.ts');
  writeFileSync(path.join(dir, 'schema-types.ts'), schemaTs);
  writeFileSync(path.join(dir, 'operations.ts'), generated);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('generated TypeScript', () => {
  it('types each enum as a union of its REST values, not string', () => {
    expect(generated).toMatch(/export type MessageStatus =[^;]*'delivered'/);
    expect(generated).toMatch(/export type TimelineEventType =[^;]*'rescheduled'/);
    expect(schemaTs).toMatch(/export type WebhookEventType =[^;]*'scheduled_cancelled'/);
    expect(schemaTs).toMatch(/export type SendKind =[^;]*'product_list'/);
    // The operations' closed sets are their enums; an open set (a template's status) stays a string.
    expect(generated).toMatch(/eventType: TimelineEventType, actorType: TimelineActorType/);
    expect(generated).not.toMatch(/\b(status|eventType|actorType|direction): (string|Scalars)/);
    expect(schemaTs).toMatch(/export type Template = [^]*?\n {2}status: Scalars\['String'\]\['output'\];/);
  });

  it('makes non-null fields required and nullable ones `| null`', () => {
    expect(generated).toMatch(/status: MessageStatus[,;\s]/);
    expect(generated).toMatch(/guestPhone\?: string \| null|guestPhone: string \| null/);
    // An input field a PATCH may leave out is optional; a required one is not.
    expect(schemaTs).toMatch(/export type UpdateScheduledCallInput = \{[^}]*guestIntakeNotes\?: InputMaybe<Scalars\['String'\]\['input'\]>/);
    expect(schemaTs).toMatch(/export type CreateScheduledCallInput = \{[^}]*\n {2}durationMinutes: Scalars\['Int'\]\['input'\];/);
  });

  it("typechecks real answers of the server, and tsc refuses a value outside an enum", async () => {
    await importRecords(server, tenant.appId, [message(1), message(2, { status: 'failed', error_message: 'undeliverable' }), agent(1, 'UTC', allDay)]);
    const rest = api(server, tenant);
    const created = await rest.create(booking(futureDay(9, 10), { assignedAgentId: agentIdOf(1), guestIntakeNotes: 'first call' }));
    expect(created.status).toBe(201);
    const id = created.body.data.call.id as string;
    const run = async (query: string, variables: Record<string, unknown>) => {
      const res = await gql(server.url, tenant.accessToken, query, variables);
      expect(res.body.errors).toBeUndefined();
      return res.body.data;
    };
    const messages = await run(MESSAGES, { app: tenant.appId });
    const updated = await run(UPDATE, { app: tenant.appId, id, input: { guestName: 'Bea', guestIntakeNotes: null } });
    const call = await run(CALL, { app: tenant.appId, id });
    expect(messages.messages.nodes.length).toBeGreaterThan(0);
    expect(call.scheduledCall.events.map((e: { eventType: string }) => e.eventType)).toEqual(['created', 'updated']);

    writeFileSync(
      path.join(dir, 'answers.ts'),
      `import type { MessagesQuery, CallWithTimelineQuery, UpdateCallMutation, UpdateCallMutationVariables } from './operations';
export const messages: MessagesQuery = ${JSON.stringify(messages)};
export const call: CallWithTimelineQuery = ${JSON.stringify(call)};
export const updated: UpdateCallMutation = ${JSON.stringify(updated)};
export const variables: UpdateCallMutationVariables = { app: 'a', id: 'b', input: { guestName: 'Bea', guestIntakeNotes: null } };
`,
    );
    writeFileSync(
      path.join(dir, 'wrong.ts'),
      `import type { MessagesQuery } from './operations';
export const lost: MessagesQuery['messages']['nodes'][number]['status'] = 'lost';
`,
    );
    const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
    const args = ['--noEmit', '--strict', '--target', 'es2022', '--module', 'esnext', '--moduleResolution', 'bundler', '--skipLibCheck'];
    const result = await promisify(execFile)(process.execPath, [tsc, ...args, 'schema-types.ts', 'answers.ts', 'wrong.ts'], { cwd: dir }).then(
      () => ({ stdout: '' }),
      (error: { stdout: string }) => ({ stdout: error.stdout }),
    );
    const errors = result.stdout.split('\n').filter((line) => /error TS/.test(line));
    expect(errors.filter((line) => !line.startsWith('wrong.ts'))).toEqual([]);
    expect(errors).toEqual([expect.stringMatching(/^wrong\.ts\(2,\d+\): error TS2322: Type '"lost"' is not assignable/)]);
  });
});
