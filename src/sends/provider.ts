import { randomUUID } from 'node:crypto';
import type { Runtime } from '../runtime.js';

// The boundary to the messaging provider (WhatsApp Cloud API, a BSP, ...). A send is handed over
// inside the transaction that stores it, after the row (and its unique flow_token) is written:
// a refused flow_token never reaches the provider, and a provider refusal stores nothing.

export interface OutboundSend {
  appId: string;
  messageId: string;
  /** Recipient, digits only. */
  to: string;
  kind: 'flow' | 'product_list' | 'template';
  /** The request body as validated, with unmatched product items already dropped. */
  payload: Record<string, unknown>;
}

export interface ProviderAcceptance {
  /** The provider's id for the message; status updates name it (`provider_message_id`). */
  providerMessageId: string;
}

export interface SendProvider {
  readonly name: string;
  /** Accepts the message for delivery or throws ProviderRejectedError. */
  send(message: OutboundSend): Promise<ProviderAcceptance>;
}

/** The provider refused the message; nothing is stored and the client gets 503 service_unavailable. */
export class ProviderRejectedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProviderRejectedError';
  }
}

/**
 * The default provider: accepts every send and assigns an id, delivering nothing. Status updates
 * for its messages are posted to /inbound like a real provider's webhooks would be.
 */
export const sandboxProvider: SendProvider = {
  name: 'sandbox',
  send: async () => ({ providerMessageId: `sandbox.${randomUUID()}` }),
};

const providers = new WeakMap<Runtime, SendProvider>();

/** Plugs a real provider into a runtime (docs/sends.md, "Providers"); without one the sandbox is used. */
export function setSendProvider(runtime: Runtime, provider: SendProvider): void {
  providers.set(runtime, provider);
}

export function sendProviderOf(runtime: Runtime): SendProvider {
  return providers.get(runtime) ?? sandboxProvider;
}
