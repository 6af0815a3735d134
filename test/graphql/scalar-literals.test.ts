import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { hasVariableScalarLiterals } from '../../src/graphql/scalar-literals.js';
import { schema } from '../../src/graphql/schema.js';
import { tenantGql } from './node-fixtures.js';
import { useServer } from '../helpers/use-server.js';

// graphql-jit parsed JSON literals once, without variables: `{ mon: $hours }` lost its `mon`.
describe('hasVariableScalarLiterals', () => {
  const has = (text: string) => hasVariableScalarLiterals(schema, parse(text));

  it('is true for a literal written for the JSON scalar, with or without variables inside', () => {
    expect(has('mutation($h: JSON) { setAgentWorkingHours(appId: "a", agentId: "b", workingHours: { mon: $h }) { agentId } }')).toBe(true);
    expect(has('mutation { setAgentWorkingHours(appId: "a", agentId: "b", workingHours: { mon: [] }) { agentId } }')).toBe(true);
  });

  it('is false for variables given whole, for the other scalars and for input objects holding variables', () => {
    expect(has('mutation($h: JSON!) { setAgentWorkingHours(appId: "a", agentId: "b", workingHours: $h) { agentId } }')).toBe(false);
    expect(has('query($app: UUID!) { messages(appId: $app, first: 5, startDate: "2026-01-01") { limit } }')).toBe(false);
    // DateTime and UUID literals parse without variables: they stay compiled.
    expect(has('query { campaigns(appId: "7d4f2c0e-5b1a-4c9e-9f3d-2a6b8c1e0f42", createdFrom: "2026-01-01T00:00:00Z") { limit } }')).toBe(false);
    expect(has('mutation($app: UUID!, $cc: VideoContactCenterInput!) { createVideoCall(appId: $app, input: { presetId: "p", contactcenter: $cc }) { callId } }')).toBe(false);
  });
});

describe('a variable inside a JSON literal', () => {
  const ctx = useServer({ tenant: true });
  const contactcenter = { conversationId: 'c', ccHostOrigin: 'o', ccTargetEnv: 'e', ccLangTag: 'en', ccUsePopupAuth: false };

  it('is stored with the literal around it, whichever executor ran the document before', async () => {
    const { server, tenant } = ctx;
    const agent = await tenantGql(server, tenant, 'mutation($app: UUID!, $input: AgentInput!) { saveAgent(appId: $app, input: $input) { agentId } }', {
      input: { name: 'Agent', timezone: 'UTC', workingHours: { mon: [] } },
    });
    const set = 'mutation($app: UUID!, $id: UUID!, $h: JSON) { setAgentWorkingHours(appId: $app, agentId: $id, workingHours: { mon: $h, tue: [["09:00", "17:00"]] }) { workingHours } }';
    // Twice: the second request of a text is the one a compiled document would answer.
    for (const hours of [[['08:00', '12:00']], [['07:00', '11:00']]]) {
      const data = await tenantGql(server, tenant, set, { id: agent.saveAgent.agentId, h: hours });
      expect(data.setAgentWorkingHours.workingHours).toMatchObject({ mon: hours, tue: [['09:00', '17:00']] });
    }
    const call = 'mutation($app: UUID!, $cc: VideoContactCenterInput!, $x: JSON) { createVideoCall(appId: $app, input: { presetId: "p", contactcenter: $cc, metadata: { a: $x } }) { callId metadata } }';
    for (const x of [1, 'two']) {
      const data = await tenantGql(server, tenant, call, { cc: contactcenter, x });
      expect(data.createVideoCall.metadata).toEqual({ a: x });
    }
  });
});
