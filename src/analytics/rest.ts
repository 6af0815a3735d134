import { defineRoute, withMeta, type RestRoute } from '../rest/adapter.js';

interface Connection<T> {
  limit: number;
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
  nodes: T[];
}

/** SPEC's list envelope: data, meta.timestamp, pagination { limit, hasMore, nextCursor }. */
const listEnvelope = <T>(page: Connection<T>) => ({
  body: withMeta(page.nodes, { pagination: { limit: page.limit, hasMore: page.pageInfo.hasNextPage, nextCursor: page.pageInfo.endCursor } }),
});

// SPEC "Message (list item)": the sixteen list fields, in SPEC's snake_case.
const messageListFields = `
  id source destination provider_from: providerFrom provider_to: providerTo channel direction
  message_type: messageType user_phone: userPhone conversation_key: conversationKey
  provider_message_id: providerMessageId status sent_at: sentAt failed_at: failedAt
  error_message: errorMessage created_at: createdAt`;

export const analyticsRoutes: RestRoute[] = [
  defineRoute<{ messages: Connection<unknown> }>({
    method: 'GET',
    path: '/analytics/:appId/messages',
    queryAliases: { limit: 'first', cursor: 'after' },
    document: `query RestMessages($appId: UUID!, $first: Int, $after: String, $status: String, $direction: String,
      $channel: String, $messageType: String, $source: String, $destination: String, $search: String,
      $startDate: String, $endDate: String) {
      messages(appId: $appId, first: $first, after: $after, status: $status, direction: $direction,
        channel: $channel, messageType: $messageType, source: $source, destination: $destination,
        search: $search, startDate: $startDate, endDate: $endDate) {
        limit pageInfo { hasNextPage endCursor } nodes { ${messageListFields} }
      }
    }`,
    respond: (data) => listEnvelope(data.messages),
  }),
];
