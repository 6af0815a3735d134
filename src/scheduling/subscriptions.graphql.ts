import { builder } from '../graphql/builder.js';
import { getScheduledCall } from './calls.service.js';
import { ScheduledCallEvent } from './calls.graphql.js';
import type { TimelineEvent } from './timeline-events.js';
import { openTimeline, resolveTimelineEvent } from '../realtime/timeline-stream.js';

// Live timelines over graphql-sse at /graphql/stream. Scope and app
// access are checked when subscribing (scope-auth authorizeOnSubscribe): an unauthorized
// subscriber gets an error and no events.
builder.subscriptionType({ description: 'Live scheduled-call timelines, served with graphql-sse at /graphql/stream.' });

const afterArg = (description: string) => ({ type: 'UUID' as const, description });

builder.subscriptionField('scheduledCallTimeline', (t) =>
  t.field({
    type: ScheduledCallEvent,
    description:
      "Events of one call as their transactions commit, on any instance. With `after` (an event id of this call), the stored events after it come first, then live ones, with no gap and no repeat. Scope: scheduling:read.",
    authScopes: (_root, args) => ({ $all: { scope: 'scheduling:read', app: args.appId } }),
    extensions: { validationErrorType: 'invalid_request' },
    args: {
      appId: t.arg({ description: "The app (UUID); must be in the token's apps.", type: 'UUID', required: true }),
      callId: t.arg({ description: 'The call (UUID).', type: 'UUID', required: true }),
      after: t.arg(afterArg('Resume after this event (the last one received). A Last-Event-ID header on /graphql/stream wins over it.')),
    },
    subscribe: async (_root, args, ctx) => {
      // Another app's call is not_found, as for the GET; checked before any event flows.
      await getScheduledCall(ctx, args.appId, args.callId);
      return openTimeline(ctx, { appId: args.appId, callId: args.callId }, args.after ?? undefined);
    },
    resolve: (event: TimelineEvent) => resolveTimelineEvent(event),
  }),
);

builder.subscriptionField('scheduledCallEvents', (t) =>
  t.field({
    type: ScheduledCallEvent,
    description:
      'Events of every call of the app, for dashboards: one stream instead of one per call (browsers allow about six SSE connections per origin). `after` resumes as for scheduledCallTimeline. Scope: scheduling:read.',
    authScopes: (_root, args) => ({ $all: { scope: 'scheduling:read', app: args.appId } }),
    extensions: { validationErrorType: 'invalid_request' },
    args: {
      appId: t.arg({ description: "The app (UUID); must be in the token's apps.", type: 'UUID', required: true }),
      after: t.arg(afterArg('Resume after this event (the last one received). A Last-Event-ID header on /graphql/stream wins over it.')),
    },
    subscribe: (_root, args, ctx) => openTimeline(ctx, { appId: args.appId }, args.after ?? undefined),
    resolve: (event: TimelineEvent) => resolveTimelineEvent(event),
  }),
);
