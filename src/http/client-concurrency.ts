import { AppError } from '../errors/app-error.js';
import type { Runtime } from '../runtime.js';

/**
 * Requests in flight per client. The rate limit counts requests over minutes; this bounds how
 * many run at once, so a client's heavy operations wait for its own earlier ones (it is told to
 * retry) instead of filling the event loop and the database pool ahead of other tenants.
 * An entry exists only while its client has a request running: the map holds at most the
 * number of requests in flight.
 */
export class ClientConcurrency {
  private readonly running = new Map<string, number>();

  constructor(readonly limit: number) {}

  /** Takes a slot for `clientId`; false when it already has `limit` requests running. */
  tryAcquire(clientId: string): boolean {
    const count = this.running.get(clientId) ?? 0;
    if (count >= this.limit) return false;
    this.running.set(clientId, count + 1);
    return true;
  }

  release(clientId: string): void {
    const count = this.running.get(clientId) ?? 0;
    if (count <= 1) this.running.delete(clientId);
    else this.running.set(clientId, count - 1);
  }

  /** Clients with a request in flight (for tests and the metrics endpoint). */
  get clients(): number {
    return this.running.size;
  }
}

/** One count of requests in flight per runtime, shared by its listeners (CLIENT_MAX_CONCURRENT). */
const byRuntime = new WeakMap<Runtime, ClientConcurrency>();
export function clientConcurrency(runtime: Runtime): ClientConcurrency {
  let concurrency = byRuntime.get(runtime);
  if (!concurrency) byRuntime.set(runtime, (concurrency = new ClientConcurrency(runtime.config.CLIENT_MAX_CONCURRENT)));
  return concurrency;
}

/** 429 for a client with `limit` requests already running; it may retry in a second. */
export const tooManyInFlight = (limit: number) =>
  new AppError('rate_limit_exceeded', `Too many requests in flight for this client: at most ${limit} at once`, { headers: { 'Retry-After': '1' } });
