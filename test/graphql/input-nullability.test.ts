import { isInputObjectType, isNonNullType } from 'graphql';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { schema } from '../../src/graphql/schema.js';
import { gql } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';

// GraphQL cannot say "optional but not null": every input field the schema shows as nullable
// either takes null, or its description says what null does (refused, or the same as absent).
describe('nullable input fields say what null does', () => {
  const fields = Object.values(schema.getTypeMap())
    .filter(isInputObjectType)
    .flatMap((type) => Object.values(type.getFields()).map((field) => ({ path: `${type.name}.${field.name}`, field })))
    .filter(({ field }) => !isNonNullType(field.type) && (field.extensions as { zod?: z.ZodType }).zod);

  it('finds the derived fields', () => expect(fields.length).toBeGreaterThan(40));

  it.each(fields.map(({ path, field }) => [path, field] as const))('%s', (_path, field) => {
    const check = (field.extensions as { zod: z.ZodType }).zod;
    if (!check.safeParse(null).success) expect(field.description).toMatch(/\bnull\b/);
  });
});

describe('AgentInput.workingHours', () => {
  const { server, tenant } = useServer({ tenant: { scopes: ['scheduling:read', 'scheduling:write'] } });
  const SAVE = `mutation($app: UUID!, $input: AgentInput!) { saveAgent(appId: $app, input: $input) { name workingHours } }`;

  const save = async (change: object) => {
    const res = await gql(server.url, tenant.accessToken, SAVE, { app: tenant.appId, input: { name: 'Bea', timezone: 'UTC', ...change } });
    expect(res.body.errors).toBeUndefined();
    return res.body.data.saveAgent.workingHours as Record<string, unknown[]>;
  };

  it('absent or null: no working hours; a value: those hours', async () => {
    const none = (hours: Record<string, unknown[]>) => Object.values(hours).every((day) => day.length === 0);
    expect(none(await save({}))).toBe(true);
    expect(none(await save({ workingHours: null }))).toBe(true);
    expect((await save({ workingHours: { mon: [['09:00', '10:00']] } })).mon).toEqual([['09:00', '10:00']]);
  });
});

// Optional arguments without a schema of their own: null is the same as leaving them out.
describe('optional arguments take null as absent', () => {
  const { server, tenant } = useServer({ tenant: true });
  it.each([
    ['messages', 'messages(appId: $app, first: null, after: null, status: null, direction: null, channel: null) { limit }'],
    ['campaigns', 'campaigns(appId: $app, first: null, status: null, tags: null, createdFrom: null, createdBefore: null) { limit }'],
    ['templates', 'templates(appId: $app, status: null, category: null, language: null) { limit }'],
    ['scheduledCalls', 'scheduledCalls(appId: $app, status: null, agentId: null, fromUtc: null, toUtc: null) { limit }'],
    ['videoCalls', 'videoCalls(appId: $app, first: null, after: null, status: null) { limit }'],
    ['webhookDeliveries', 'webhookDeliveries(appId: $app, first: null, after: null, status: null, subscriptionId: null) { limit }'],
    ['summaryMetrics', 'summaryMetrics(appId: $app, startDate: null, endDate: null) { sent }'],
    ['dailyMetrics', 'dailyMetrics(appId: $app, startDate: null, endDate: null, timezone: null) { date }'],
  ])('%s', async (_name, selection) => {
    const res = await gql(server.url, tenant.accessToken, `query($app: UUID!) { ${selection} }`, { app: tenant.appId });
    expect(res.body.errors).toBeUndefined();
  });
});

// The PATCH input through the server: each nullable field given as null does what its
// description says, refused (naming the field) or taken.
describe('UpdateScheduledCallInput: null for each field', () => {
  const { server, tenant } = useServer({ tenant: { scopes: ['scheduling:read', 'scheduling:write'] } });
  const hours = Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, [['00:00', '24:00']]]));
  const fields = Object.values((schema.getType('UpdateScheduledCallInput') as import('graphql').GraphQLInputObjectType).getFields());
  let day = 3;

  it.each(fields.map((f) => [f.name, f.description ?? ''] as const))('%s', async (name, description) => {
    const run = (query: string, variables: Record<string, unknown>) => gql(server.url, tenant.accessToken, query, { app: tenant.appId, ...variables });
    await run('mutation($app: UUID!, $input: AgentInput!) { saveAgent(appId: $app, input: $input) { agentId } }', { input: { name: 'Ann', timezone: 'UTC', workingHours: hours } });
    const at = new Date();
    at.setUTCDate(at.getUTCDate() + day++);
    at.setUTCHours(10, 0, 0, 0);
    const created = await run('mutation($app: UUID!, $input: CreateScheduledCallInput!) { createScheduledCall(appId: $app, input: $input) { callId } }', {
      input: { scheduledAtUtc: at.toISOString(), durationMinutes: 30, guestName: 'Guest', guestPhone: '+447700900123', guestEmail: 'g@example.com', guestIntakeNotes: 'n', metadata: { k: 'v' }, answers: [{ question: 'q', answer: 'a' }] },
    });
    expect(created.body.errors).toBeUndefined();
    // Another field changes too, so a null that means "none" still leaves an edit to make.
    const res = await run('mutation($app: UUID!, $id: UUID!, $input: UpdateScheduledCallInput!) { updateScheduledCall(appId: $app, id: $id, input: $input) { guestPhone guestEmail guestIntakeNotes metadata answers { answer } } }', {
      id: created.body.data.createScheduledCall.callId,
      input: { guestName: 'Other', [name]: null },
    });
    if (/null is refused/.test(description)) {
      expect(res.body.errors?.[0]?.extensions?.code).toBe('invalid_request');
      expect(res.body.errors?.[0]?.extensions?.details).toEqual([expect.objectContaining({ field: `input.${name}` })]);
    } else {
      expect(description).toMatch(/null (clears|or \[\] clears|: none)|absent or null: none|null clears/);
      expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
      const call = res.body.data.updateScheduledCall as Record<string, unknown>;
      if (/clears/.test(description)) expect(call[name]).toBeNull();
    }
  });
});
