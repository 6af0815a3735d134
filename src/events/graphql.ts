import { AppRef } from '../apps/graphql.js';
import { builder } from '../graphql/builder.js';
import { keysetConnection, pageArgs, pageComplexity, toConnection } from '../graphql/connection.js';
import { closedEnum } from '../graphql/enums.js';
import { asNode } from '../graphql/node.js';
import { filterInput, listArgs } from '../graphql/list-filter.js';
import { resolveStreamEvent } from '../realtime/log-stream.js';
import { openEvents } from './stream.js';
import { eventListArgs, eventPatterns, eventsAfterId, listEvents, MAX_PATTERNS } from './service.js';
import { pageSizeValue } from '../validation/list-input.js';
import { appEvents, type AppEventRow } from './tables.js';

// The app event log: pulled as a list (root field and App.events), followed live as a
// subscription. One scope, events:read, covers every event type.

const ActorTypeEnum = closedEnum('EventActorType', ['client', 'system'], 'Who caused an event: client (an API caller) or system.');

export const AppEventRef = builder.objectRef<AppEventRow>('AppEvent').implement({
  description: "One entry of an app's event log, oldest first. Scope: events:read.",
  fields: (t) => ({
    eventId: t.exposeID('id', { description: 'Event id (UUID), its raw id; pass it as `after` to continue a list or resume a subscription.' }),
    type: t.exposeString('type', {
      description:
        'What happened, such as message.received or scheduled_call.created (the types are listed in docs/realtime.md). A string, not an enum: the names have a dot, as the REST events path and webhook bodies spell them, which an enum value cannot (WebhookEventType names the same types with an underscore).',
    }),
    occurredAt: t.expose('occurredAt', { type: 'DateTime', description: 'When the change was written (ISO 8601 UTC).' }),
    actorType: t.expose('actorType', { type: ActorTypeEnum, description: 'client (an API caller) or system.' }),
    actorId: t.exposeString('actorId', { description: 'The client id for client actors; `system` otherwise.' }),
    resource: t.field({
      type: 'JSON',
      nullable: true,
      description: 'The resource as it is after the change, in snake_case as the REST API shows it; null when there is none.',
      resolve: (event) => event.resource,
    }),
  }),
});

// Pruned events (past the retention) answer node(id:) with null, as an unknown id does.
asNode(AppEventRef, { table: appEvents, appId: appEvents.appId, id: appEvents.id, uuid: true, scope: 'events:read', appIdOf: (row) => row.appId, rawIdOf: (row) => row.id });

const AppEventConnection = keysetConnection('AppEvent', AppEventRef, "A page of an app's events, oldest first (the log's order).");

const typesDescription = `Event types to include: a type (message.received), a group (scheduled_call.*) or *; at most ${MAX_PATTERNS}. Default every type.`;
const afterDescription = 'Continue after this event id (pageInfo.endCursor, or any event id of the app). An id older than the retention is refused with details code cursor_expired.';
const beforeDescription = 'Read backward from before this event id (pageInfo.startCursor, or any event id of the app); not with after. An id older than the retention is refused with details code cursor_expired.';

const EventFilter = filterInput('EventFilter', 'Which events a list holds.', eventListArgs, { types: typesDescription });

const eventsScope = (appId: string) => ({ $all: { scope: 'events:read' as const, app: appId } });

builder.queryField('events', (t) =>
  t.field({
    type: AppEventConnection,
    description: "The app's event log, oldest first, filtered like GET /events/{appId}. Scope: events:read.",
    authScopes: (_root, args) => eventsScope(args.appId),
    complexity: pageComplexity,
    args: {
      appId: t.arg({ description: "The app (UUID); must be in the token's apps.", type: 'UUID', required: true }),
      ...pageArgs(t.arg, { size: pageSizeValue, cursor: eventsAfterId }, { after: afterDescription, before: beforeDescription }),
      types: t.arg.stringList({ description: typesDescription, validate: { schema: eventPatterns } }),
      filter: t.arg({ type: EventFilter, description: 'The filters as one input; not together with the separate filter arguments.' }),
    },
    resolve: (_root, args, ctx) => toConnection(ctx, listEvents(ctx, listArgs(eventListArgs, args))),
  }),
);

builder.objectField(AppRef, 'events', (t) =>
  t.field({
    type: AppEventConnection,
    description: "This app's event log, oldest first. Scope: events:read.",
    authScopes: (app) => eventsScope(app.id),
    complexity: pageComplexity,
    args: {
      ...pageArgs(t.arg, {}, { after: afterDescription, before: beforeDescription }),
      filter: t.arg({ type: EventFilter, description: 'Which events; default all.' }),
    },
    resolve: (app, args, ctx) => toConnection(ctx, listEvents(ctx, listArgs(eventListArgs, { ...args, appId: app.id }))),
  }),
);

builder.subscriptionField('events', (t) =>
  t.field({
    type: AppEventRef,
    description:
      "The app's events as their transactions commit, on any instance. With `after` (an event id of the app), the stored events after it come first, then live ones, with no gap and no repeat. Scope: events:read.",
    authScopes: (_root, args) => eventsScope(args.appId),
    extensions: { validationErrorType: 'invalid_request' },
    args: {
      appId: t.arg({ description: "The app (UUID); must be in the token's apps.", type: 'UUID', required: true }),
      types: t.arg.stringList({ description: typesDescription }),
      after: t.arg({ type: 'UUID', description: 'Resume after this event (the last one received). A Last-Event-ID header on /graphql/stream wins over it.' }),
    },
    subscribe: (_root, args, ctx) => openEvents(ctx, { appId: args.appId, types: args.types ?? undefined }, args.after ?? undefined),
    resolve: (event: AppEventRow) => resolveStreamEvent(event),
  }),
);
