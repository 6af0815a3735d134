import { sql } from 'drizzle-orm';
import { seedAnalytics } from '../analytics/seed.js';
import { createApp, createClient } from '../apps/service.js';
import { apps } from '../apps/tables.js';
import { scopes } from '../auth/scopes.js';
import { createRequestContext, type Runtime } from '../runtime.js';
import { catalogs, products } from '../sends/tables.js';
import {
  callEndedArgs,
  createVideoCall,
  createVideoCallInput,
  participantJoinedArgs,
  participantLeftArgs,
  recordCallEnded,
  recordingStatusArgs,
  recordParticipantJoined,
  recordParticipantLeft,
  recordRecordingStatus,
} from '../video/service.js';
import { agents } from '../scheduling/tables.js';
import type { WeeklyHours } from '../scheduling/working-hours.js';

export interface DemoCredentials {
  appId: string;
  clientId: string;
  clientSecret: string;
}

/** Sample data of each domain for the demo app, small enough for a first start. */
const demoData: ((runtime: Runtime, appId: string) => Promise<unknown>)[] = [
  (runtime, appId) => seedAnalytics({ db: runtime.database.db, copy: runtime.database.kind === 'postgres', appId, now: runtime.clock.now(), messages: 2_000 }),
  // Two agents, so availability has slots and GraphiQL's BookCall tab books one.
  (runtime, appId) =>
    runtime.database.db.insert(agents).values(
      ['Grace Hopper', 'Alan Turing'].map((name) => ({ appId, name, timezone: 'Europe/London', workingHours: weekdays('09:00', '17:00') })),
    ),
  // The Product List example in docs/sends.md names this catalog and its items (the importer's own example data).
  async (runtime, appId) => {
    const { db } = runtime.database;
    await db.insert(catalogs).values({ appId, id: 'cat-1', name: 'Spring menu' });
    await db.insert(products).values([
      { appId, catalogId: 'cat-1', productRetailerId: 'sku-1', name: 'Risotto', price: 14.5 },
      { appId, catalogId: 'cat-1', productRetailerId: 'sku-2', name: 'Tiramisu', price: 6.5 },
    ]);
  },
  // A video call that has ended, for the video host's lookup and GraphiQL's VideoCalls tab, written
  // through the service as the provider's events would be.
  async (runtime, appId) => {
    const ctx = createRequestContext(runtime, 'demo-bootstrap');
    const start = runtime.clock.now().getTime();
    const minutesAgo = (m: number) => new Date(start - m * 60_000);
    const call = await createVideoCall(
      ctx,
      appId,
      createVideoCallInput.parse({
        presetId: 'group_call_host',
        title: 'Demo consultation',
        hostName: 'Grace Hopper',
        guestName: 'Ada Lovelace',
        provider: { name: 'vonage', meetingId: 'demo-meeting-1' },
        contactcenter: { conversationId: 'demo-conversation-1', ccHostOrigin: 'https://cc.example.com', ccTargetEnv: 'production', ccLangTag: 'en-GB', ccUsePopupAuth: false },
      }),
    );
    const key = { appId, callId: call.id };
    await recordParticipantJoined(ctx, participantJoinedArgs.parse({ ...key, providerParticipantId: 'demo-host', role: 'host', name: 'Grace Hopper', at: minutesAgo(42) }));
    await recordParticipantJoined(ctx, participantJoinedArgs.parse({ ...key, providerParticipantId: 'demo-guest', role: 'participant', name: 'Ada Lovelace', at: minutesAgo(40) }));
    await recordRecordingStatus(ctx, recordingStatusArgs.parse({ ...key, providerArchiveId: 'demo-archive-1', status: 'processing', at: minutesAgo(40) }));
    await recordParticipantLeft(ctx, participantLeftArgs.parse({ ...key, providerParticipantId: 'demo-guest', at: minutesAgo(12) }));
    await recordCallEnded(ctx, callEndedArgs.parse({ ...key, at: minutesAgo(11) }));
    await recordRecordingStatus(
      ctx,
      recordingStatusArgs.parse({ ...key, providerArchiveId: 'demo-archive-1', status: 'available', url: 'https://recordings.example.com/demo-archive-1.mp4', at: minutesAgo(9) }),
    );
  },
];

const weekdays = (from: string, to: string) => Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri'].map((day) => [day, [[from, to]]])) as WeeklyHours;

// Arbitrary constant naming "demo bootstrap" for pg_advisory_xact_lock.
const DEMO_LOCK_ID = 724_061_338;

/**
 * First start on empty storage creates a demo app and an all-scopes client, so a new user can try
 * every endpoint at once.
 * Returns the credentials only to the instance that created them: the secret is shown once.
 */
export async function bootstrapDemo(runtime: Runtime): Promise<DemoCredentials | undefined> {
  const { db } = runtime.database;
  const created = await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${DEMO_LOCK_ID})`);
    const [existing] = await tx.select({ id: apps.id }).from(apps).limit(1);
    if (existing) return undefined;
    return createApp(tx, { name: 'Demo app', timezone: 'Europe/London' });
  });
  if (!created) return undefined;
  const client = await createClient(db, { apps: [created.id], scopes: [...scopes], name: 'Demo client (all scopes)' });
  for (const seed of demoData) await seed(runtime, created.id);
  return { appId: created.id, clientId: client.client_id, clientSecret: client.client_secret };
}

export function demoBanner(credentials: DemoCredentials, baseUrl: string): string {
  const { appId, clientId, clientSecret } = credentials;
  return [
    '',
    'Switchboard demo app created (this secret is shown once, keep it):',
    `  app id:        ${appId}`,
    `  client id:     ${clientId}`,
    `  client secret: ${clientSecret}`,
    '',
    'Get a token and call the API:',
    `  TOKEN=$(curl -s ${baseUrl}/api/v1/oauth/token -H 'content-type: application/json' \\`,
    `    -d '{"grant_type":"client_credentials","client_id":"${clientId}","client_secret":"${clientSecret}"}' \\`,
    `    | node -pe 'JSON.parse(require("fs").readFileSync(0)).data.access_token')`,
    `  curl -si ${baseUrl}/graphql -H "authorization: Bearer $TOKEN" -H 'content-type: application/json' \\`,
    `    -d '{"query":"{ viewer { clientId scopes appIds } }"}'`,
    '',
  ].join('\n');
}
