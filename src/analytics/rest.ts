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

const campaignListFields = 'id name status total_contacts: totalContacts sent_count: sentCount created_at: createdAt';
const campaignsQuery = `query RestCampaigns($appId: UUID!, $first: Int, $after: String, $status: [String!], $search: String,
  $tags: [String!], $startDate: String, $endDate: String, $createdFrom: DateTime, $createdBefore: DateTime) {
  campaigns(appId: $appId, first: $first, after: $after, status: $status, search: $search, tags: $tags,
    startDate: $startDate, endDate: $endDate, createdFrom: $createdFrom, createdBefore: $createdBefore) {
    limit pageInfo { hasNextPage endCursor } nodes { ${campaignListFields} }
  }
}`;

const asObject = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

analyticsRoutes.push(
  defineRoute<{ campaigns: Connection<unknown> }>({
    method: 'GET',
    path: '/analytics/:appId/campaigns',
    queryAliases: { limit: 'first', cursor: 'after' },
    document: campaignsQuery,
    respond: (data) => listEnvelope(data.campaigns),
  }),
  defineRoute<{ campaigns: Connection<unknown> }>({
    method: 'POST',
    path: '/analytics/:appId/campaigns/search',
    invalidJson: 'invalid_json',
    // SPEC: filter.startDate and filter.endDate are ISO datetimes, half-open (DESIGN section 6).
    body: {
      map: (body) => {
        const filter = asObject(body.filter);
        return {
          first: body.limit,
          after: body.cursor,
          status: filter.status,
          search: filter.name,
          tags: filter.tags,
          createdFrom: filter.startDate,
          createdBefore: filter.endDate,
        };
      },
      fieldNames: {
        first: 'limit',
        after: 'cursor',
        status: 'filter.status',
        search: 'filter.name',
        tags: 'filter.tags',
        createdFrom: 'filter.startDate',
        createdBefore: 'filter.endDate',
      },
    },
    document: campaignsQuery,
    respond: (data) => listEnvelope(data.campaigns),
  }),
);
