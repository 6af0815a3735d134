import { ApolloClient as ApolloClient3, ApolloError, HttpLink as HttpLink3, InMemoryCache as InMemoryCache3, gql as gql3 } from '@apollo/client-3/core/index.js';
import { ApolloClient, CombinedGraphQLErrors, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { Client, fetchExchange } from '@urql/core';
import { ClientError, GraphQLClient } from 'graphql-request';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Tenant } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';

/**
 * The GraphQL clients people use, against the real server: each must hand the application the
 * errors' `extensions.code` (and `details`) through its own error API, which it does only when a
 * refusal during execution is a 200 with `errors` (GraphQL over HTTP), and data on success.
 */

interface Outcome {
  data?: Record<string, unknown>;
  errors?: readonly { message: string; extensions?: Record<string, unknown> }[];
}
type Run = (query: string, variables: Record<string, unknown>) => Promise<Outcome>;

const clients: Record<string, (url: string, token: string) => Run> = {
  'Apollo Client 3': (url, token) => {
    const client = new ApolloClient3({ link: new HttpLink3({ uri: url, headers: { authorization: `Bearer ${token}` } }), cache: new InMemoryCache3() });
    return async (query, variables) => {
      try {
        const result = await client.query({ query: gql3(query), variables, fetchPolicy: 'no-cache' });
        return { data: result.data };
      } catch (error) {
        if (error instanceof ApolloError && error.graphQLErrors.length > 0) return { errors: error.graphQLErrors };
        throw error;
      }
    };
  },
  'Apollo Client 4': (url, token) => {
    const client = new ApolloClient({ link: new HttpLink({ uri: url, headers: { authorization: `Bearer ${token}` } }), cache: new InMemoryCache() });
    return async (query, variables) => {
      try {
        const result = await client.query({ query: gql(query), variables, fetchPolicy: 'no-cache' });
        return { data: result.data as Record<string, unknown> };
      } catch (error) {
        if (CombinedGraphQLErrors.is(error)) return { errors: error.errors };
        throw error;
      }
    };
  },
  urql: (url, token) => {
    const client = new Client({ url, exchanges: [fetchExchange], fetchOptions: { headers: { authorization: `Bearer ${token}` } } });
    return async (query, variables) => {
      const result = await client.query(query, variables, { requestPolicy: 'network-only' }).toPromise();
      if (result.error?.networkError) throw result.error.networkError;
      return result.error ? { errors: result.error.graphQLErrors } : { data: result.data };
    };
  },
  'graphql-request': (url, token) => {
    const client = new GraphQLClient(url, { headers: { authorization: `Bearer ${token}` } });
    return async (query, variables) => {
      try {
        return { data: await client.request<Record<string, unknown>>(query, variables) };
      } catch (error) {
        if (error instanceof ClientError && error.response.errors) return { errors: error.response.errors };
        throw error;
      }
    };
  },
};

const { server, tenant } = useServer({ tenant: true });
let reader: Tenant;
beforeAll(async () => {
  reader = await server.tenant({ scopes: ['messages:read'] });
});

const scheduledCall = 'query Call($app: UUID!, $id: UUID!) { scheduledCall(appId: $app, id: $id) { id: callId } }';
const messages = 'query Messages($app: UUID!, $n: Int) { messages(appId: $app, first: $n) { limit } }';

describe.each(Object.keys(clients))('%s against the server', (name) => {
  const run = (token: string): Run => clients[name]!(`${server.url}/graphql`, token);

  it('a successful query: data', async () => {
    const outcome = await run(tenant.accessToken)(messages, { app: tenant.appId, n: 7 });
    expect(outcome.errors).toBeUndefined();
    expect(outcome.data).toMatchObject({ messages: { limit: 7 } });
  });

  it('an unknown scheduled call: not_found', async () => {
    const outcome = await run(tenant.accessToken)(scheduledCall, { app: tenant.appId, id: '00000000-0000-4000-8000-000000000000' });
    expect(outcome.errors?.[0]?.extensions?.code, JSON.stringify(outcome)).toBe('not_found');
  });

  it('a token without the scope: forbidden', async () => {
    const outcome = await run(reader.accessToken)(scheduledCall, { app: reader.appId, id: '00000000-0000-4000-8000-000000000000' });
    expect(outcome.errors?.[0]?.extensions?.code, JSON.stringify(outcome)).toBe('forbidden');
  });

  it('an argument the resolver refuses: validation_error with the field path in details', async () => {
    const outcome = await run(tenant.accessToken)(messages, { app: tenant.appId, n: 500 });
    expect(outcome.errors?.[0]?.extensions?.code, JSON.stringify(outcome)).toBe('validation_error');
    expect(outcome.errors?.[0]?.extensions?.details).toEqual([expect.objectContaining({ field: 'first', code: 'too_big' })]);
  });

  it('a variable that does not coerce (nothing executed): validation_error with the variable in details', async () => {
    const outcome = await run(tenant.accessToken)(messages, { app: tenant.appId, n: 'five' });
    expect(outcome.errors?.[0]?.extensions?.code, JSON.stringify(outcome)).toBe('validation_error');
    expect(outcome.errors?.[0]?.extensions?.details).toEqual([expect.objectContaining({ field: 'n', code: 'invalid_type' })]);
  });
});
