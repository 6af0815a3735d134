import { defineRoute, type RestRoute } from '../rest/adapter.js';
import { listEnvelope, type Connection } from '../rest/list.js';

// GET /events/{appId}: the event log as the other v1 lists page (data, meta, pagination), oldest
// first; `after` is an event id, so a receiver resumes from the last event it handled.
export const eventRoutes: RestRoute[] = [
  defineRoute<{ events: Connection<unknown> }>({
    method: 'GET',
    path: '/events/:appId',
    queryAliases: { limit: 'first' },
    document: `query RestEvents($appId: UUID!, $first: Int, $after: String, $types: [String!]) {
      events(appId: $appId, first: $first, after: $after, types: $types) {
        limit pageInfo { hasNextPage endCursor }
        nodes { id: eventId type occurred_at: occurredAt actor_type: actorType actor_id: actorId resource }
      }
    }`,
    respond: (data) => listEnvelope(data.events),
  }),
];
