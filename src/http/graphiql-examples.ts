// GraphiQL's opening tabs: one per domain, each runnable once the Headers tab has a token
// (POST /api/v1/oauth/token) and the variables name one of the token's apps (query Viewer).
// test/graphql/graphiql.test.ts validates every document against the schema.

const headers = JSON.stringify({ Authorization: 'Bearer <access_token>' }, null, 2);

/**
 * The scheduling tab's day: a Monday about a year after the process started, so the booking is
 * in the future (a fixed date went stale) and inside the demo agents' London working hours.
 */
function exampleMonday(now = new Date()): string {
  const day = new Date(Date.UTC(now.getUTCFullYear() + 1, now.getUTCMonth(), now.getUTCDate()));
  day.setUTCDate(day.getUTCDate() + ((8 - day.getUTCDay()) % 7));
  return day.toISOString().slice(0, 10);
}
const bookingDay = exampleMonday();
const appVariables = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({ appId: '<an app id from viewer.appIds>', ...extra }, null, 2);

export interface GraphiQLTab {
  query: string;
  variables: string;
  headers: string;
}

export const graphiqlTabs: GraphiQLTab[] = [
  {
    query: `# Switchboard GraphQL
# 1. Get a token: POST /api/v1/oauth/token with
#    grant_type=client_credentials, client_id, client_secret
# 2. Headers tab: { "Authorization": "Bearer <access_token>" }
# 3. Run Viewer: the apps and scopes of your token.
# The other tabs: one example per domain (analytics,
# scheduling, sends, video, subscriptions); put an app
# id from viewer.appIds in their variables.
query Viewer {
  viewer { clientId scopes appIds }
}
`,
    variables: '{}',
    headers,
  },
  {
    query: `# Analytics (scopes messages:read, campaigns:read, analytics:read).
# id is a global id: refetch any of these with
#   node(id: "<id>") { ... on Campaign { campaignId name } }
# messageId and campaignId are the raw ids REST paths take.
query AnalyticsOverview($appId: UUID!, $first: Int) {
  messages(appId: $appId, first: $first, direction: outbound) {
    nodes { id messageId status channel userPhone sentAt createdAt }
    pageInfo { hasNextPage endCursor }
  }
  campaigns(appId: $appId, first: $first) {
    nodes { id campaignId name status totalContacts sentCount stats { sent delivered read failed } }
  }
  summaryMetrics(appId: $appId) { sent delivered read failed cost contacts }
  dailyMetrics(appId: $appId, timezone: "UTC") { date sent delivered read failed cost }
  campaignTags(appId: $appId)
}
`,
    variables: appVariables({ first: 5 }),
    headers,
  },
  {
    query: `# Navigation (scope messages:read): an app's lists are fields
# of App. filter takes the list's filters as one typed input;
# count is exact up to a cap (10,000), then AT_LEAST the cap.
query AppMessages($appId: ID!, $filter: MessageFilter) {
  app(id: $appId) {
    name
    messages(first: 10, filter: $filter) {
      count { count precision }
      nodes { messageId status direction channel userPhone createdAt }
      pageInfo { hasNextPage endCursor }
    }
  }
}
`,
    variables: appVariables({ filter: { direction: 'outbound', status: 'failed' } }),
    headers,
  },
  {
    query: `# Scheduling (scopes scheduling:read, scheduling:write).
query Availability($appId: UUID!, $fromUtc: DateTime!, $toUtc: DateTime!) {
  availability(appId: $appId, fromUtc: $fromUtc, toUtc: $toUtc, durationMinutes: 30) {
    slots { startUtc endUtc agentId }
  }
  scheduledCalls(appId: $appId, first: 10, status: scheduled) {
    nodes { id callId guestName scheduledAt durationMinutes status assignedAgentId }
  }
}

mutation BookCall($appId: UUID!, $input: CreateScheduledCallInput!) {
  createScheduledCall(appId: $appId, input: $input) {
    id callId status scheduledAt assignedAgentId
    events { eventType actorType createdAt }
  }
}
`,
    variables: appVariables({
      fromUtc: `${bookingDay}T09:00:00Z`,
      toUtc: `${bookingDay}T16:00:00Z`,
      input: { scheduledAtUtc: `${bookingDay}T10:00:00Z`, durationMinutes: 30, guestName: 'Ada Lovelace', guestEmail: 'ada@example.com' },
    }),
    headers,
  },
  {
    query: `# Sends: a Flow message goes out inside the 24-hour window,
# which an inbound message from the number opens: run
# OpenWindow (scope messages:ingest), then SendFlow
# (scope messages:send).
mutation OpenWindow($appId: UUID!, $event: JSON!) {
  ingestInboundEvent(appId: $appId, event: $event) {
    event applied
    message { id status direction createdAt }
  }
}

mutation SendFlow($appId: UUID!, $message: JSON!) {
  sendMessage(appId: $appId, message: $message, idempotencyKey: "example-1") {
    replayed
    message { messageId status kind to flowToken createdAt }
  }
}
`,
    variables: appVariables({
      // An id of its own per start: the provider's id of a message already stored is a redelivery.
      event: { type: 'message', id: `wamid.graphiql-${Date.now()}`, from: '447700900123', text: 'Hi, can I book a table?' },
      message: {
        to: '+447700900123',
        type: 'interactive',
        interactive: {
          type: 'flow',
          body: { text: 'Book your appointment' },
          action: {
            name: 'flow',
            parameters: {
              flow_message_version: '3',
              flow_token: 'example-token-1',
              flow_id: '1234567890',
              flow_cta: 'Book now',
              flow_action: 'navigate',
              flow_action_payload: { screen: 'WELCOME' },
            },
          },
        },
      },
    }),
    headers,
  },
  {
    query: `# Video calls (scope video:read).
query VideoCalls($appId: UUID!) {
  videoCalls(appId: $appId, first: 5) {
    nodes {
      callId status title hostName guestName
      provider { name meetingId }
      participants { name role joinedAt leftAt billedMinutes }
      usage { participantMinutes }
      recordings { status url createdAt }
    }
  }
}
`,
    variables: appVariables(),
    headers,
  },
  {
    query: `# Subscriptions (scope scheduling:read) run over graphql-sse at /graphql/stream:
# every scheduled-call event of the app as its transaction commits.
subscription CallEvents($appId: UUID!) {
  scheduledCallEvents(appId: $appId) {
    id eventId callId eventType actorType actorId payload createdAt
  }
}
`,
    variables: appVariables(),
    headers,
  },
  {
    query: `# The app event log (scope events:read): every change, oldest first. Pass the last
# eventId as after to continue; types takes types, groups (video_call.*) or *.
query AppEvents($appId: UUID!) {
  events(appId: $appId, first: 20, types: ["message.*", "scheduled_call.*", "video_call.*", "recording.updated", "flow.completed"]) {
    nodes { eventId type occurredAt actorType actorId resource }
    pageInfo { hasNextPage endCursor }
  }
}
`,
    variables: appVariables(),
    headers,
  },
  {
    query: `# The same log live over graphql-sse at /graphql/stream (scope events:read); after, or
# the Last-Event-ID header of a reconnecting EventSource, resumes with nothing missed or repeated.
subscription AppEventStream($appId: UUID!) {
  events(appId: $appId, types: ["*"]) {
    eventId type occurredAt actorType actorId resource
  }
}
`,
    variables: appVariables(),
    headers,
  },
];
