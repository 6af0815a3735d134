import type { PeersScenario } from '../types.js';
import { graphqlDocument, graphqlMessagesPage } from './messages.js';

const LIMIT = 50;
const json = { 'content-type': 'application/json' };

// PostGraphile's generated connection for the same page: a condition on app_id (an indexed
// column, so the Amber preset offers it), newest first with the id as tie-break, as the service
// orders. `rowId` is the table's `id` column (PostGraphile keeps `id` for the global node id).
const postgraphileDocument = `query Messages($appId: UUID!, $first: Int) {
  allMessages(condition: { appId: $appId }, orderBy: [CREATED_AT_DESC, ROW_ID_DESC], first: $first) {
    pageInfo { hasNextPage endCursor }
    nodes { rowId source destination providerFrom providerTo channel direction messageType userPhone conversationKey
      providerMessageId status sentAt failedAt errorMessage createdAt }
  }
}`;

export const graphqlPeers: PeersScenario = {
  kind: 'peers',
  name: 'graphql_peers',
  title: 'Messages page, no filter, from peer GraphQL servers',
  versus: graphqlMessagesPage,
  peers: [
    {
      name: 'postgraphile',
      script: 'postgraphile.mjs',
      minNode: 22,
      packages: ['postgraphile', 'grafast', 'pg'],
      describe: 'generated allMessages connection (Amber preset, grafserv on node:http, pg pool of 10)',
      request: (ctx) => ({
        method: 'POST',
        path: '/graphql',
        headers: json,
        body: JSON.stringify({ query: postgraphileDocument, variables: { appId: ctx.dataset.appId, first: LIMIT } }),
      }),
      ids: (body: { data: { allMessages: { nodes: { rowId: string }[] } } }) => body.data.allMessages.nodes.map((n) => n.rowId),
    },
    {
      name: 'mercurius',
      script: 'mercurius.mjs',
      minNode: 20,
      packages: ['mercurius', 'fastify', 'graphql-jit', 'postgres'],
      describe: "the service's document, hand-written resolver running the floor's SQL through postgres.js (pool of 10, generic plans), jit: 1",
      request: (ctx) => ({
        method: 'POST',
        path: '/graphql',
        headers: json,
        body: JSON.stringify({ query: graphqlDocument, variables: { appId: ctx.dataset.appId, first: LIMIT } }),
      }),
      ids: (body: { data: { messages: { nodes: { id: string }[] } } }) => body.data.messages.nodes.map((n) => n.id),
    },
  ],
};
