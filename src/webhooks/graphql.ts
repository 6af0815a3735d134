import { AppRef } from '../apps/graphql.js';
import { builder } from '../graphql/builder.js';
import { keysetConnection, pageArgs, pageComplexity, toConnection } from '../graphql/connection.js';
import { filterInput, listArgs } from '../graphql/list-filter.js';
import { closedEnum } from '../graphql/enums.js';
import { deliveryTypes, MAX_SUBSCRIPTION_PATTERNS, PING_TYPE, typesReceived, type DeliveryType } from './patterns.js';
import {
  createSubscription,
  pingSubscription,
  rotateSecret,
  type RotatedSecret,
  MAX_SECRET_OVERLAP_SECONDS,
  deleteSubscription,
  deliveryListArgs,
  deliveryStatuses,
  listDeliveries,
  listSubscriptions,
  retryDelivery,
  setSubscriptionStatus,
  subscriptionStatuses,
} from './service.js';
import { webhookDeliveries, webhookSubscriptions, type WebhookDeliveryRow, type WebhookSubscriptionRow } from './tables.js';
import { asNode } from '../graphql/node.js';

// Webhook subscriptions and their deliveries. Every field: scope webhooks:write and access to
// the app, so a client manages only its own apps' webhooks.
const manage = (appId: string) => ({ $all: { scope: 'webhooks:write' as const, app: appId } });

const DISABLED_BY = 'by the app, after the endpoint answered 410 Gone, or after WEBHOOK_DISABLE_AFTER_FAILURES deliveries in a row failed';
const SubscriptionStatusEnum = closedEnum('WebhookSubscriptionStatus', subscriptionStatuses, `active, or disabled (${DISABLED_BY}).`);
// A webhook type is dotted (scheduled.cancelled), which is no GraphQL name: the enum names it with
// an underscore, and the delivered body's `type` keeps the dot. Wildcards are no enum value: they
// go in `events`, as strings.
const WebhookEventTypeEnum = closedEnum(
  'WebhookEventType',
  deliveryTypes as unknown as readonly [DeliveryType, ...DeliveryType[]],
  'A webhook type, named with an underscore for its dot: scheduled_cancelled is delivered with type "scheduled.cancelled", message_received with "message.received".',
  Object.fromEntries(deliveryTypes.map((v) => [v, v === PING_TYPE ? `A test delivery (pingWebhookSubscription), type "${v}"; no subscription lists it.` : `Delivered with type "${v}".`])),
  (v) => v.replace('.', '_'),
);
const DeliveryStatusEnum = closedEnum('WebhookDeliveryStatus', deliveryStatuses, 'pending until delivered (succeeded) or out of attempts (failed).');

export const WebhookSubscription = builder.objectRef<WebhookSubscriptionRow>('WebhookSubscription').implement({
  description: 'An endpoint of an app that receives signed webhooks (Standard Webhooks). The secret is only returned at creation.',
  fields: (t) => ({
    subscriptionId: t.exposeID('id', { description: 'The subscription id (UUID), its raw id.' }),
    appId: t.exposeID('appId', { description: 'The app it belongs to.' }),
    url: t.exposeString('url', { description: 'Where deliveries are POSTed.' }),
    events: t.exposeStringList('eventTypes', {
      description: 'What it listens to, as given: event types (message.received), group wildcards (scheduled_call.*), * (every catalogue type) and scheduled.* webhook types.',
    }),
    eventTypes: t.field({
      type: [WebhookEventTypeEnum],
      description: 'The webhook types it receives: its events with the wildcards expanded.',
      resolve: (row) => typesReceived(row.eventTypes),
    }),
    description: t.exposeString('description', { nullable: true, description: 'A note for people.' }),
    status: t.expose('status', { type: SubscriptionStatusEnum, description: `active, or disabled (${DISABLED_BY}); disabledReason says which.` }),
    disabledReason: t.exposeString('disabledReason', { nullable: true, description: 'Why it was disabled, when it is.' }),
    consecutiveFailures: t.exposeInt('consecutiveFailures', {
      description: 'Deliveries in a row that failed after all their attempts; a success resets it; at WEBHOOK_DISABLE_AFTER_FAILURES the subscription is disabled.',
    }),
    previousSecretExpiresAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'After a rotation: until when deliveries are also signed with the previous secret; null when only the current one signs.',
      resolve: (row, _args, ctx) => (row.previousSecretExpiresAt && row.previousSecretExpiresAt > ctx.runtime.clock.now() ? row.previousSecretExpiresAt : null),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was created.' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When it last changed.' }),
  }),
});

export const WebhookDelivery = builder.objectRef<WebhookDeliveryRow>('WebhookDelivery').implement({
  description: 'One message to one subscription, retried until delivered or failed. Its id is the webhook-id header.',
  fields: (t) => ({
    deliveryId: t.exposeID('id', { description: 'The delivery id (UUID), its raw id, sent as the webhook-id header.' }),
    subscriptionId: t.exposeID('subscriptionId', { description: 'The subscription it goes to.' }),
    eventType: t.expose('eventType', { type: WebhookEventTypeEnum, description: 'The webhook type (scheduled_cancelled: the body\'s type is "scheduled.cancelled").' }),
    payload: t.field({ type: 'JSON', description: 'The JSON body sent: {type, timestamp, data}.', resolve: (d) => d.payload }),
    status: t.expose('status', { type: DeliveryStatusEnum, description: `One of ${deliveryStatuses.join(', ')}.` }),
    attempts: t.exposeInt('attempts', { description: 'Attempts made so far.' }),
    lastResponseCode: t.exposeInt('lastResponseCode', { nullable: true, description: 'HTTP status of the last attempt; null when no response came.' }),
    lastError: t.exposeString('lastError', {
      nullable: true,
      description:
        'What went wrong in the last attempt, as a category: http_<status>, timeout, connection_refused, connection_reset, unreachable, dns_error, tls_error, address_refused, network_error, interrupted or subscription_deleted.',
    }),
    nextAttemptAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the next attempt is due; null once succeeded or failed.',
      resolve: (d) => (d.status === 'pending' ? d.nextAttemptAt : null),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was created.' }),
    deliveredAt: t.expose('deliveredAt', { type: 'DateTime', nullable: true, description: 'When a 2xx answered it.' }),
  }),
});

const CreatedWebhookSubscription = builder
  .objectRef<{ subscription: WebhookSubscriptionRow; secret: string }>('CreatedWebhookSubscription')
  .implement({
    description: 'A new subscription and its signing secret (returned only here).',
    fields: (t) => ({
      subscription: t.field({ type: WebhookSubscription, description: 'The new subscription.', resolve: (r) => r.subscription }),
      secret: t.exposeString('secret', { description: 'whsec_… signing secret: shown only here, keep it.' }),
    }),
  });

const RotatedWebhookSecret = builder.objectRef<RotatedSecret>('RotatedWebhookSecret').implement({
  description: 'A subscription with a new signing secret (returned only here).',
  fields: (t) => ({
    subscription: t.field({ type: WebhookSubscription, description: 'The subscription.', resolve: (r) => r.subscription }),
    secret: t.exposeString('secret', { description: 'The new whsec_… signing secret: shown only here, keep it.' }),
    previousSecretExpiresAt: t.expose('previousSecretExpiresAt', {
      type: 'DateTime',
      nullable: true,
      description: 'Until when deliveries also carry a signature with the previous secret; null with an overlap of 0.',
    }),
  }),
});

const WebhookDeliveryConnection = keysetConnection('WebhookDelivery', WebhookDelivery, 'A page of deliveries, newest first.');

const WebhookDeliveryFilter = filterInput('WebhookDeliveryFilter', 'Which deliveries a list holds: every field given must match.', deliveryListArgs, {
  status: { description: `One of ${deliveryStatuses.join(', ')}.`, type: DeliveryStatusEnum },
  subscriptionId: 'Only deliveries of this subscription.',
});

builder.queryField('webhookSubscriptions', (t) =>
  t.field({
    type: [WebhookSubscription],
    description: 'The webhook subscriptions of an app (at most 50), oldest first. Scope: webhooks:write.',
    authScopes: (_root, args) => manage(args.appId),
    args: { appId: t.arg({ type: 'UUID', required: true, description: "The app (UUID); must be in the token's apps." }) },
    resolve: (_root, args, ctx) => listSubscriptions(ctx.runtime.database.db, args.appId),
  }),
);

builder.queryField('webhookDeliveries', (t) =>
  t.field({
    type: WebhookDeliveryConnection,
    description: 'Deliveries of an app, newest first, optionally by status or subscription. Scope: webhooks:write.',
    authScopes: (_root, args) => manage(args.appId),
    complexity: pageComplexity,
    args: {
      appId: t.arg({ type: 'UUID', required: true, description: "The app (UUID); must be in the token's apps." }),
      status: t.arg({ type: DeliveryStatusEnum, description: `One of ${deliveryStatuses.join(', ')}.` }),
      subscriptionId: t.arg({ type: 'UUID', description: 'Only deliveries of this subscription.' }),
      ...pageArgs(t.arg),
      filter: t.arg({ type: WebhookDeliveryFilter, description: 'The filters as one input; not together with the separate filter arguments.' }),
    },
    resolve: (_root, args, ctx) => toConnection(ctx, listDeliveries(ctx.runtime.database.db, ctx.runtime.keys.cursorKeys, listArgs(deliveryListArgs, args))),
  }),
);

builder.objectFields(AppRef, (t) => ({
  webhookSubscriptions: t.field({
    type: [WebhookSubscription],
    description: 'The webhook subscriptions of this app (at most 50), oldest first. Scope: webhooks:write.',
    authScopes: (app) => manage(app.id),
    resolve: (app, _args, ctx) => listSubscriptions(ctx.runtime.database.db, app.id),
  }),
  webhookDeliveries: t.field({
    type: WebhookDeliveryConnection,
    description: 'Deliveries of this app, newest first (created_at desc, id desc). Scope: webhooks:write.',
    authScopes: (app) => manage(app.id),
    complexity: pageComplexity,
    args: {
      ...pageArgs(t.arg),
      filter: t.arg({ type: WebhookDeliveryFilter, description: 'Which deliveries; default all.' }),
    },
    resolve: (app, args, ctx) => toConnection(ctx, listDeliveries(ctx.runtime.database.db, ctx.runtime.keys.cursorKeys, listArgs(deliveryListArgs, { ...args, appId: app.id }))),
  }),
}));

builder.mutationField('createWebhookSubscription', (t) =>
  t.field({
    type: CreatedWebhookSubscription,
    description:
      'Subscribes an http(s) URL to event types; URLs resolving to private or loopback addresses are refused (field url) unless WEBHOOK_ALLOW_PRIVATE=1. Returns the signing secret once. Scope: webhooks:write.',
    authScopes: (_root, args) => manage(args.appId),
    args: {
      appId: t.arg({ type: 'UUID', required: true, description: "The app (UUID); must be in the token's apps." }),
      url: t.arg.string({ required: true, description: 'http(s) URL of the endpoint; private and loopback addresses are refused unless WEBHOOK_ALLOW_PRIVATE=1.' }),
      events: t.arg.stringList({
        description: `What to receive (1 to ${MAX_SUBSCRIPTION_PATTERNS}): event types (message.received), group wildcards (scheduled_call.*), * for every catalogue type, or scheduled.* webhook types. Unknown ones are refused (field events.<index>). Not together with eventTypes.`,
      }),
      eventTypes: t.arg({ type: [WebhookEventTypeEnum], description: 'The same as exact types from the enum (at least one). Not together with events.' }),
      description: t.arg.string({ description: 'A note for people.' }),
    },
    resolve: (_root, args, ctx) =>
      createSubscription(ctx.runtime.database.db, { allowPrivate: ctx.runtime.config.WEBHOOK_ALLOW_PRIVATE, now: ctx.runtime.clock.now(), idempotency: ctx.idempotency }, args),
  }),
);

builder.mutationField('rotateWebhookSecret', (t) =>
  t.field({
    type: RotatedWebhookSecret,
    description:
      'Gives a subscription a new signing secret, returned once. During the overlap (overlapSeconds, default WEBHOOK_SECRET_OVERLAP_MS: 24 h) every delivery carries a signature with each secret; after it only the new one, and the old secret is erased. Scope: webhooks:write.',
    authScopes: (_root, args) => manage(args.appId),
    args: {
      appId: t.arg({ type: 'UUID', required: true, description: "The app (UUID); must be in the token's apps." }),
      id: t.arg({ type: 'UUID', required: true, description: 'The subscription id.' }),
      overlapSeconds: t.arg.int({ description: `How long the old secret still signs, 0 to ${MAX_SECRET_OVERLAP_SECONDS} seconds (0: the new one alone at once).` }),
    },
    resolve: (_root, args, ctx) =>
      rotateSecret(ctx.runtime.database.db, { now: ctx.runtime.clock.now(), defaultOverlapMs: ctx.runtime.config.WEBHOOK_SECRET_OVERLAP_MS, idempotency: ctx.idempotency }, args),
  }),
);

builder.mutationField('pingWebhookSubscription', (t) =>
  t.field({
    type: WebhookDelivery,
    description: `Queues a signed test delivery of type "${PING_TYPE}" to this subscription only, sent and retried like any other; look its status up by deliveryId. The subscription must be active. Scope: webhooks:write.`,
    authScopes: (_root, args) => manage(args.appId),
    args: { appId: t.arg({ type: 'UUID', required: true, description: "The app (UUID); must be in the token's apps." }), id: t.arg({ type: 'UUID', required: true, description: 'The subscription id.' }) },
    resolve: (_root, args, ctx) => pingSubscription(ctx.runtime.database.db, { now: ctx.runtime.clock.now(), idempotency: ctx.idempotency }, args.appId, args.id),
  }),
);

builder.mutationField('setWebhookSubscriptionStatus', (t) =>
  t.field({
    type: WebhookSubscription,
    description: 'active re-enables a subscription (after a 410 or repeated failures, its failure count reset); disabled pauses it: no new deliveries, and pending ones wait until it is active again. Scope: webhooks:write.',
    authScopes: (_root, args) => manage(args.appId),
    args: {
      appId: t.arg({ type: 'UUID', required: true, description: "The app (UUID); must be in the token's apps." }),
      id: t.arg({ type: 'UUID', required: true, description: 'The id.' }),
      active: t.arg.boolean({ required: true, description: 'true: active; false: disabled.' }),
    },
    resolve: (_root, args, ctx) => setSubscriptionStatus(ctx.runtime.database.db, args.appId, args.id, args.active ? 'active' : 'disabled', ctx.runtime.clock.now(), ctx.idempotency),
  }),
);

builder.mutationField('deleteWebhookSubscription', (t) =>
  t.field({
    type: WebhookSubscription,
    description: 'Deletes a subscription and its deliveries (pending ones are not sent). Scope: webhooks:write.',
    authScopes: (_root, args) => manage(args.appId),
    args: { appId: t.arg({ type: 'UUID', required: true, description: "The app (UUID); must be in the token's apps." }), id: t.arg({ type: 'UUID', required: true, description: 'The id.' }) },
    resolve: (_root, args, ctx) => deleteSubscription(ctx.runtime.database.db, args.appId, args.id, ctx.idempotency),
  }),
);

builder.mutationField('retryWebhookDelivery', (t) =>
  t.field({
    type: WebhookDelivery,
    description: 'Queues a failed delivery again, same id, with a fresh attempt budget. Scope: webhooks:write.',
    authScopes: (_root, args) => manage(args.appId),
    args: { appId: t.arg({ type: 'UUID', required: true, description: "The app (UUID); must be in the token's apps." }), id: t.arg({ type: 'UUID', required: true, description: 'The id.' }) },
    resolve: (_root, args, ctx) => retryDelivery(ctx.runtime.database.db, args.appId, args.id, ctx.runtime.clock.now(), ctx.idempotency),
  }),
);

asNode(WebhookSubscription, { table: webhookSubscriptions, appId: webhookSubscriptions.appId, id: webhookSubscriptions.id, uuid: true, scope: 'webhooks:write', appIdOf: (row) => row.appId, rawIdOf: (row) => row.id });
asNode(WebhookDelivery, { table: webhookDeliveries, appId: webhookDeliveries.appId, id: webhookDeliveries.id, uuid: true, scope: 'webhooks:write', appIdOf: (row) => row.appId, rawIdOf: (row) => row.id });
