/**
 * Peer: Mercurius on Fastify with graphql-jit (compiled after a document's first run) and one
 * hand-written resolver running the floor's SQL for the messages page through postgres.js
 * (prepared statements planned once, as the service's unfiltered pages are). It accepts the service's own
 * document: `messages(appId, first)` with `limit`, `pageInfo` and `nodes`. No auth, scopes or
 * limits. Started by bench/run.ts with PEER_PORT and PEER_DATABASE_URL.
 */
import Fastify from 'fastify';
import { GraphQLScalarType, Kind } from 'graphql';
import mercurius from 'mercurius';
import postgres from 'postgres';

const url = process.env.PEER_DATABASE_URL;
if (!url) throw new Error('PEER_DATABASE_URL is required');
const sql = postgres(url, { max: Number(process.env.PEER_POOL_MAX ?? 10), prepare: true, connection: { plan_cache_mode: 'force_generic_plan', jit: 'off' } });

// The floor's text for the page (bench/scenarios/common.ts: MESSAGE_COLUMNS, MESSAGE_ORDER).
const PAGE_SQL =
  'select "app_id", "id", "source", "destination", "provider_from", "provider_to", "channel", "direction", "message_type", ' +
  '"user_phone", "conversation_key", "provider_message_id", "status", "sent_at", "failed_at", "delivered_at", "read_at", ' +
  '"error_message", "campaign_id", "cost", "created_at" from "messages" where "messages"."app_id" = $1 ' +
  'order by "messages"."created_at" desc, "messages"."id" desc limit $2';

const schema = `
  scalar UUID
  scalar DateTime
  type PageInfo { hasNextPage: Boolean! endCursor: String }
  type Message {
    messageId: String! source: String! destination: String! providerFrom: String providerTo: String
    channel: String! direction: String! messageType: String! userPhone: String! conversationKey: String!
    providerMessageId: String! status: String! sentAt: DateTime failedAt: DateTime errorMessage: String createdAt: DateTime!
  }
  type MessageConnection { limit: Int! pageInfo: PageInfo! nodes: [Message!]! }
  type Query { messages(appId: UUID!, first: Int): MessageConnection! }
`;

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const uuid = (value) => {
  if (typeof value !== 'string' || !UUID_RE.test(value)) throw new TypeError('UUID expected');
  return value;
};
const iso = (value) => (value instanceof Date ? value.toISOString() : value);

const resolvers = {
  UUID: new GraphQLScalarType({
    name: 'UUID',
    serialize: uuid,
    parseValue: uuid,
    parseLiteral: (ast) => (ast.kind === Kind.STRING ? uuid(ast.value) : undefined),
  }),
  DateTime: new GraphQLScalarType({ name: 'DateTime', serialize: iso }),
  Query: {
    messages: async (_root, { appId, first }) => {
      const limit = Math.min(Math.max(first ?? 50, 1), 200);
      const rows = await sql.unsafe(PAGE_SQL, [appId, limit + 1], { prepare: true });
      const hasNextPage = rows.length > limit;
      const page = hasNextPage ? rows.slice(0, limit) : rows;
      const last = page.at(-1);
      return {
        limit,
        pageInfo: { hasNextPage, endCursor: last ? Buffer.from(JSON.stringify([iso(last.created_at), last.id])).toString('base64url') : null },
        nodes: page.map((r) => ({
          messageId: r.id,
          source: r.source,
          destination: r.destination,
          providerFrom: r.provider_from,
          providerTo: r.provider_to,
          channel: r.channel,
          direction: r.direction,
          messageType: r.message_type,
          userPhone: r.user_phone,
          conversationKey: r.conversation_key,
          providerMessageId: r.provider_message_id,
          status: r.status,
          sentAt: r.sent_at,
          failedAt: r.failed_at,
          errorMessage: r.error_message,
          createdAt: r.created_at,
        })),
      };
    },
  },
};

const app = Fastify({ logger: false });
await app.register(mercurius, { schema, resolvers, jit: 1, graphiql: false });
app.get('/healthz', async () => ({}));
await app.listen({ port: Number(process.env.PEER_PORT ?? 0), host: '127.0.0.1' });

const stop = () => void app.close().then(() => sql.end({ timeout: 5 })).then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
