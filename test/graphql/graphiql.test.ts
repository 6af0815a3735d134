import { getOperationAST, Kind, parse, validate, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql/schema.js';
import { graphiqlTabs } from '../../src/http/graphiql-examples.js';
import { gql, request } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';

const { server, tenant } = useServer({ tenant: true });

const operations = (query: string) =>
  parse(query).definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);

describe('GraphiQL examples', () => {
  it('every example is valid against the schema and every tab has the header template and JSON variables', () => {
    for (const tab of graphiqlTabs) {
      expect(validate(schema, parse(tab.query)).map((e) => e.message)).toEqual([]);
      expect(JSON.parse(tab.headers)).toEqual({ Authorization: 'Bearer <access_token>' });
      expect(() => JSON.parse(tab.variables)).not.toThrow();
    }
  });

  it('cover analytics, scheduling, sends, video and subscriptions', () => {
    const rootFields = graphiqlTabs.flatMap((tab) =>
      operations(tab.query).flatMap((op) => op.selectionSet.selections.map((s) => (s.kind === Kind.FIELD ? `${op.operation} ${s.name.value}` : ''))),
    );
    for (const field of [
      'query viewer',
      'query messages',
      'query campaigns',
      'query summaryMetrics',
      'query availability',
      'mutation createScheduledCall',
      'mutation sendMessage',
      'query videoCalls',
      'subscription scheduledCallEvents',
    ]) {
      expect(rootFields).toContain(field);
    }
  });

  it('the query examples run as they stand once the token and an app id are filled in', async () => {
    for (const tab of graphiqlTabs) {
      for (const op of operations(tab.query).filter((o) => o.operation === 'query')) {
        const variables = { ...JSON.parse(tab.variables), appId: tenant.appId };
        const res = await gql(server.url, tenant.accessToken, tab.query, variables);
        const named = await request(`${server.url}/graphql`, {
          token: tenant.accessToken,
          json: { query: tab.query, variables, operationName: op.name?.value },
        });
        expect(getOperationAST(parse(tab.query), op.name?.value)).toBeTruthy();
        expect(named.status, op.name?.value).toBe(200);
        expect(named.body.errors, `${op.name?.value}: ${JSON.stringify(named.body.errors)}`).toBeUndefined();
        expect(named.body.data).toBeTruthy();
        if (operations(tab.query).length === 1) expect(res.body.errors).toBeUndefined();
      }
    }
  });

  it('GET /graphql in a browser serves GraphiQL bundled in the page (no CDN) with the example tabs', async () => {
    const res = await fetch(`${server.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).not.toContain('unpkg.com');
    expect(html).toContain('renderYogaGraphiQL');
    expect(html).toContain(JSON.stringify(graphiqlTabs[1]!.query).slice(1, 60));
    expect(html).toContain('Bearer <access_token>');
  });
});
