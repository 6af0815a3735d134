import { messageListFields, restMessage } from '../analytics/rest.js';
import { defineRoute, withMeta, type RestRoute } from '../rest/adapter.js';

// POST /messaging/{appId}/messages (202 data.message) and /inbound, through the schema.
const sentMessageFields = `id: messageId status to kind message_type: messageType provider_message_id: providerMessageId
  flow_token: flowToken template_name: templateName product_item_count: productItemCount created_at: createdAt`;


export const sendRoutes: RestRoute[] = [
  defineRoute<{ sendMessage: { message: unknown } }>({
    method: 'POST',
    path: '/messaging/:appId/messages',
    body: { variable: 'message' },
    headers: { 'Idempotency-Key': 'idempotencyKey' },
    reusedKey: 'conflict',
    document: `mutation RestSendMessage($appId: UUID!, $message: JSON!, $idempotencyKey: String) {
      sendMessage(appId: $appId, message: $message, idempotencyKey: $idempotencyKey) { message { ${sentMessageFields} } }
    }`,
    respond: (data) => ({ status: 202, body: withMeta({ message: data.sendMessage.message }) }),
  }),
  defineRoute<{ ingestInboundEvent: { message: { provider_from: string | null; provider_to: string | null } } }>({
    method: 'POST',
    path: '/messaging/:appId/inbound',
    body: { variable: 'event' },
    document: `mutation RestInboundEvent($appId: UUID!, $event: JSON!) {
      ingestInboundEvent(appId: $appId, event: $event) {
        event applied linked_message_id: linkedMessageId message { ${messageListFields} }
      }
    }`,
    // The message as the analytics message list shows it, so both read alike.
    respond: (data) => ({ body: withMeta({ ...data.ingestInboundEvent, message: restMessage(data.ingestInboundEvent.message) }) }),
  }),
];
