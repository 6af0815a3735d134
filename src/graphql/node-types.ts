// Every entity with an id of its own is a Node: refetchable with node(id:) through its table,
// under the scope its root fields need and only within the token's apps.
import { isNull } from 'drizzle-orm';
import { CampaignRef } from '../analytics/campaigns.graphql.js';
import { MessageRef } from '../analytics/messages.graphql.js';
import { campaigns, messages, templates } from '../analytics/tables.js';
import { TemplateRef } from '../analytics/templates.graphql.js';
import { AppRef } from '../apps/graphql.js';
import { apps } from '../apps/tables.js';
import { Agent } from '../scheduling/agents.graphql.js';
import { ScheduledCall, ScheduledCallEvent } from '../scheduling/calls.graphql.js';
import { agents, scheduledCallEvents, scheduledCalls } from '../scheduling/tables.js';
import { VideoCall } from '../video/calls.graphql.js';
import { videoCalls } from '../video/tables.js';
import { WebhookDelivery, WebhookSubscription } from '../webhooks/graphql.js';
import { webhookDeliveries, webhookSubscriptions } from '../webhooks/tables.js';
import { asNode } from './node.js';

const owned = <T extends { appId: string; id: string }>() => ({ appIdOf: (row: T) => row.appId, rawIdOf: (row: T) => row.id });

asNode(AppRef, { table: apps, appId: apps.id, id: apps.id, uuid: true, appIdOf: (row) => row.id, rawIdOf: (row) => row.id });
asNode(MessageRef, { table: messages, appId: messages.appId, id: messages.id, uuid: false, scope: 'messages:read', ...owned() });
asNode(CampaignRef, { table: campaigns, appId: campaigns.appId, id: campaigns.id, uuid: true, scope: 'campaigns:read', ...owned() });
asNode(TemplateRef, { table: templates, appId: templates.appId, id: templates.id, uuid: true, scope: 'analytics:read', ...owned() });
asNode(Agent, { table: agents, appId: agents.appId, id: agents.id, uuid: true, scope: 'scheduling:read', visible: isNull(agents.deletedAt), ...owned() });
asNode(ScheduledCall, { table: scheduledCalls, appId: scheduledCalls.appId, id: scheduledCalls.id, uuid: true, scope: 'scheduling:read', ...owned() });
asNode(ScheduledCallEvent, { table: scheduledCallEvents, appId: scheduledCallEvents.appId, id: scheduledCallEvents.id, uuid: true, scope: 'scheduling:read', ...owned() });
asNode(VideoCall, { table: videoCalls, appId: videoCalls.appId, id: videoCalls.id, uuid: true, scope: 'video:read', ...owned() });
asNode(WebhookSubscription, { table: webhookSubscriptions, appId: webhookSubscriptions.appId, id: webhookSubscriptions.id, uuid: true, scope: 'webhooks:write', ...owned() });
asNode(WebhookDelivery, { table: webhookDeliveries, appId: webhookDeliveries.appId, id: webhookDeliveries.id, uuid: true, scope: 'webhooks:write', ...owned() });
