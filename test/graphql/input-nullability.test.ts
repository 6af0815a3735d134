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
