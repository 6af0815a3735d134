import { validationFailed, type ErrorDetail } from '../errors/app-error.js';
import { defineRoute, withMeta, type RestRoute } from '../rest/adapter.js';
import { listEnvelope, type Connection } from '../rest/list.js';

// A message as a list item: the sixteen list fields, in the REST API's snake_case.
export const messageListFields = `
  id: messageId source destination provider_from: providerFrom provider_to: providerTo channel direction
  message_type: messageType user_phone: userPhone conversation_key: conversationKey
  provider_message_id: providerMessageId status sent_at: sentAt failed_at: failedAt
  error_message: errorMessage created_at: createdAt`;

/**
 * A message as REST shows it: provider_from and provider_to are strings there, empty when the
 * number is unknown (null in GraphQL and in storage).
 */
type RestMessage = { provider_from: string | null; provider_to: string | null };

export function restMessage<T extends { provider_from?: string | null; provider_to?: string | null }>(message: T): T {
  return { ...message, provider_from: message.provider_from ?? '', provider_to: message.provider_to ?? '' };
}

export const analyticsRoutes: RestRoute[] = [
  defineRoute<{ messages: Connection<RestMessage> }>({
    method: 'GET',
    path: '/analytics/:appId/messages',
    queryAliases: { limit: 'first', cursor: 'after' },
    document: `query RestMessages($appId: UUID!, $first: Int, $after: String, $status: MessageStatus, $direction: MessageDirection,
      $channel: String, $messageType: String, $source: String, $destination: String, $search: String,
      $startDate: String, $endDate: String) {
      messages(appId: $appId, first: $first, after: $after, status: $status, direction: $direction,
        channel: $channel, messageType: $messageType, source: $source, destination: $destination,
        search: $search, startDate: $startDate, endDate: $endDate) {
        limit pageInfo { hasNextPage endCursor } nodes { ${messageListFields} }
      }
    }`,
    respond: (data) => listEnvelope({ ...data.messages, nodes: data.messages.nodes.map(restMessage) }),
  }),
  defineRoute<{ message: RestMessage }>({
    method: 'GET',
    path: '/analytics/:appId/messages/:id',
    // The list item's fields plus the delivery timestamps the list leaves out.
    document: `query RestMessage($appId: UUID!, $id: String!) {
      message(appId: $appId, id: $id) { ${messageListFields} delivered_at: deliveredAt read_at: readAt }
    }`,
    respond: (data) => ({ body: withMeta({ message: restMessage(data.message) }) }),
  }),
];

const campaignListFields = 'id: campaignId name status total_contacts: totalContacts sent_count: sentCount created_at: createdAt';
const campaignsQuery = `query RestCampaigns($appId: UUID!, $first: Int, $after: String, $status: [CampaignStatusFilter!], $search: String,
  $tags: [String!], $startDate: String, $endDate: String, $createdFrom: DateTime, $createdBefore: DateTime) {
  campaigns(appId: $appId, first: $first, after: $after, status: $status, search: $search, tags: $tags,
    startDate: $startDate, endDate: $endDate, createdFrom: $createdFrom, createdBefore: $createdBefore) {
    limit pageInfo { hasNextPage endCursor } nodes { ${campaignListFields} }
  }
}`;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `filter` is an object, `filter.status` and `filter.tags` arrays of strings. GraphQL would
 * take a lone string for a list (input coercion), and a non-object `filter` would be no filter
 * at all: both are refused here, with their body paths.
 */
const SEARCH_KEYS = ['limit', 'cursor', 'filter'];
const FILTER_KEYS = ['status', 'name', 'tags', 'startDate', 'endDate'];

/** Keys the body does not have: a misspelt `limt` or `filter.nmae` is refused, not silently dropped (OpenAPI: additionalProperties false). */
const unrecognized = (object: Record<string, unknown>, known: readonly string[], prefix = ''): ErrorDetail[] =>
  Object.keys(object)
    .filter((key) => !known.includes(key))
    .map((key) => ({ field: `${prefix}${key}`, code: 'unrecognized' as const, message: 'Unrecognized field' }));

function searchFilter(body: Record<string, unknown>): Record<string, unknown> {
  const { filter } = body;
  const unknownKeys = unrecognized(body, SEARCH_KEYS);
  if (unknownKeys.length > 0) throw validationFailed(unknownKeys);
  if (filter === undefined || filter === null) return {};
  if (!isObject(filter)) throw validationFailed([{ field: 'filter', code: 'invalid_type', message: 'must be an object' }]);
  const details: ErrorDetail[] = unrecognized(filter, FILTER_KEYS, 'filter.');
  for (const key of ['status', 'tags'] as const) {
    const value = filter[key];
    if (value !== undefined && value !== null && !Array.isArray(value)) details.push({ field: `filter.${key}`, code: 'invalid_type', message: 'must be an array of strings' });
  }
  if (details.length > 0) throw validationFailed(details);
  return filter;
}

analyticsRoutes.push(
  defineRoute<{ campaigns: Connection<unknown> }>({
    method: 'GET',
    path: '/analytics/:appId/campaigns',
    queryAliases: { limit: 'first', cursor: 'after' },
    singleValueQuery: ['status'],
    document: campaignsQuery,
    respond: (data) => listEnvelope(data.campaigns),
  }),
  defineRoute<{ campaigns: Connection<unknown> }>({
    method: 'POST',
    path: '/analytics/:appId/campaigns/search',
    invalidJson: 'invalid_json',
    // filter.startDate and filter.endDate are ISO datetimes, half-open [start, end).
    body: {
      map: (body) => {
        const filter = searchFilter(body);
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

const templateFields = `id: templateId app_id: appId name category language status header_type: headerType header_text: headerText
  body_text: bodyText body_variables: bodyVariables footer_text: footerText buttons
  provider_template_id: providerTemplateId provider_status: providerStatus
  provider_rejection_reason: providerRejectionReason provider_quality: providerQuality
  created_at: createdAt updated_at: updatedAt`;

const funnelFields = 'sent delivered read failed';

analyticsRoutes.push(
  defineRoute<{ templates: Connection<unknown> }>({
    method: 'GET',
    path: '/analytics/:appId/templates',
    queryAliases: { limit: 'first', cursor: 'after' },
    document: `query RestTemplates($appId: UUID!, $first: Int, $after: String, $search: String, $status: String, $category: String, $language: String) {
      templates(appId: $appId, first: $first, after: $after, search: $search, status: $status, category: $category, language: $language) {
        limit pageInfo { hasNextPage endCursor } nodes { ${templateFields} }
      }
    }`,
    respond: (data) => listEnvelope(data.templates),
  }),
  defineRoute<{ template: unknown }>({
    method: 'GET',
    path: '/analytics/:appId/templates/:templateId',
    document: `query RestTemplate($appId: UUID!, $templateId: UUID!) {
      template(appId: $appId, templateId: $templateId) {
        ${templateFields} button_count: buttonCount quick_reply_count: quickReplyCount
      }
    }`,
    respond: (data) => ({ body: withMeta(data.template) }),
  }),
  defineRoute<{ campaignTags: string[] }>({
    method: 'GET',
    path: '/analytics/:appId/tags',
    document: 'query RestTags($appId: UUID!) { campaignTags(appId: $appId) }',
    respond: (data) => ({ body: withMeta(data.campaignTags) }),
  }),
  defineRoute<{ tagStats: unknown }>({
    method: 'GET',
    path: '/analytics/:appId/tags/:tag/stats',
    document: `query RestTagStats($appId: UUID!, $tag: String!) {
      tagStats(appId: $appId, tag: $tag) { campaign_count: campaignCount ${funnelFields} last_used: lastUsed }
    }`,
    respond: (data) => ({ body: withMeta(data.tagStats) }),
  }),
  defineRoute<{ dailyMetrics: unknown[] }>({
    method: 'GET',
    path: '/analytics/:appId/metrics/daily',
    document: `query RestDailyMetrics($appId: UUID!, $startDate: DateTime, $endDate: DateTime, $timezone: String) {
      dailyMetrics(appId: $appId, startDate: $startDate, endDate: $endDate, timezone: $timezone) { date ${funnelFields} cost }
    }`,
    respond: (data) => ({ body: withMeta(data.dailyMetrics) }),
  }),
  defineRoute<{ summaryMetrics: unknown }>({
    method: 'GET',
    path: '/analytics/:appId/metrics/summary',
    document: `query RestSummaryMetrics($appId: UUID!, $startDate: DateTime, $endDate: DateTime) {
      summaryMetrics(appId: $appId, startDate: $startDate, endDate: $endDate) { ${funnelFields} cost contacts }
    }`,
    respond: (data) => ({ body: withMeta(data.summaryMetrics) }),
  }),
);
