import { createClient, type Client } from 'graphql-sse';
import type { Tenant, TestServer } from '../helpers/server.js';
import { agent, agentIdOf, api, everyDay, futureDay, importRecords } from '../scheduling/fixtures.js';

/** Two agents available around the clock, so any future slot can be booked. */
export const seedAgents = (server: TestServer, appId: string) =>
  importRecords(server, appId, [agent(1, 'UTC', everyDay('00:00', '24:00')), agent(2, 'UTC', everyDay('00:00', '24:00'))]);

export const TIMELINE = `subscription($app: UUID!, $id: UUID!, $after: UUID) {
  scheduledCallTimeline(appId: $app, callId: $id, after: $after) { id: eventId callId eventType actorType payload } }`;
export const APP_EVENTS = `subscription($app: UUID!, $after: UUID) { scheduledCallEvents(appId: $app, after: $after) { id: eventId callId eventType } }`;

export interface Received {
  data?: Record<string, { id: string; callId: string; eventType: string; payload?: Record<string, unknown> }>;
  errors?: { message: string; extensions?: Record<string, unknown> }[];
}

/** Subscribes and collects results; `until` resolves once `count` arrived (or rejects after 5 s). */
export function subscribe(url: string, token: string | undefined, query: string, variables: Record<string, unknown>) {
  const client: Client = createClient({ url: `${url}/graphql/stream`, headers: token ? { authorization: `Bearer ${token}` } : {}, retryAttempts: 0 });
  const received: Received[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  let completed = false;
  let failure: unknown;
  const done = new Promise<void>((resolve) => {
    client.subscribe(query ? { query, variables } : { query }, {
      next: (value) => {
        received.push(value as Received);
        for (const w of waiters.filter((w) => received.length >= w.count)) w.resolve();
      },
      error: (error) => {
        failure = error;
        resolve();
      },
      complete: () => {
        completed = true;
        resolve();
      },
    });
  });
  return {
    received,
    done,
    get completed() {
      return completed;
    },
    get failure() {
      return failure;
    },
    until: (count: number) =>
      new Promise<void>((resolve, reject) => {
        if (received.length >= count) return resolve();
        const timer = setTimeout(() => reject(new Error(`timed out with ${received.length} of ${count}: ${JSON.stringify(received)}`)), 5000);
        waiters.push({ count, resolve: () => (clearTimeout(timer), resolve()) });
      }),
    close: () => client.dispose(),
  };
}

export const settle = () => new Promise((r) => setTimeout(r, 250));
/** Books a 30-minute call with agent 1 and returns its id. */
export const booker = (server: TestServer) => async (t: Tenant, day: number, hour: number) =>
  (await api(server, t).create({ scheduledAtUtc: futureDay(day, hour).toISOString(), durationMinutes: 30, guestName: 'Sub', assignedAgentId: agentIdOf(1) })).body.data.call.id as string;
