import { Readable } from 'node:stream';
import { importNdjson } from '../../src/importer/ndjson.js';
import { importTypes } from '../../src/importer/types.js';
import { gql } from '../helpers/http.js';
import type { Tenant, TestServer } from '../helpers/server.js';

/** Imports records through the real NDJSON importer, as a user would. */
export async function importRecords(server: TestServer, appId: string, records: object[]) {
  const text = records.map((r) => JSON.stringify(r)).join('\n');
  return importNdjson({ db: server.runtime.database.db, appId, input: Readable.from([text]), types: importTypes, clock: server.runtime.clock });
}

const pad = (n: number) => String(n).padStart(12, '0');
export const callIdOf = (n: number) => `00000000-0000-4000-a000-${pad(n)}`;
export const participantIdOf = (n: number) => `00000000-0000-4000-b000-${pad(n)}`;
export const recordingIdOf = (n: number) => `00000000-0000-4000-9c00-${pad(n)}`;

export const contactcenter = {
  conversationId: 'conv-1',
  ccHostOrigin: 'https://cc.example.com',
  ccTargetEnv: 'production',
  ccLangTag: 'en-GB',
  ccUsePopupAuth: true,
};

/** A `video_call` import record with every optional field set; `overrides` replace whole fields. */
export function videoCall(n: number, overrides: Record<string, unknown> = {}) {
  return {
    type: 'video_call',
    callId: callIdOf(n),
    status: 'ended',
    presetId: 'group_call_host',
    title: `Call ${n}`,
    description: 'Quarterly review',
    metadata: { ticket: `T-${n}`, priority: 2 },
    hostName: 'Ada (agent)',
    guestName: 'Grace',
    provider: { name: 'vonage', meetingId: `mtg-${n}` },
    contactcenter,
    participants: [
      {
        id: participantIdOf(n * 10 + 1),
        providerParticipantId: `pp-host-${n}`,
        role: 'host',
        name: 'Ada',
        joinedAt: '2026-03-01T10:00:00.000Z',
        leftAt: '2026-03-01T10:01:01.000Z',
      },
    ],
    recordings: [
      {
        id: recordingIdOf(n * 10 + 1),
        providerArchiveId: `arch-${n}`,
        url: `https://files.example.com/arch-${n}.mp4`,
        status: 'available',
        createdAt: '2026-03-01T10:00:05.000Z',
        updatedAt: '2026-03-01T10:05:00.000Z',
      },
    ],
    createdAt: new Date(Date.UTC(2026, 2, 1, 9, 0, 0) + n * 60_000).toISOString(),
    ...overrides,
  };
}

/** The fields of the video host's `data`, in the order the API documents them. */
export const specCallFields = [
  'callId', 'status', 'presetId', 'title', 'description', 'metadata', 'hostName', 'guestName',
  'provider', 'contactcenter', 'participants', 'usage', 'recordings',
];
export const specParticipantFields = ['id', 'providerParticipantId', 'role', 'name', 'joinedAt', 'leftAt', 'billedMinutes'];
export const specRecordingFields = ['id', 'providerArchiveId', 'url', 'status', 'createdAt', 'updatedAt'];

export const iso = (ms: number) => new Date(ms).toISOString();

// The video call's fields, spelled out here (not borrowed from the route) so the test can disagree.
export const CALL = `callId status presetId title description metadata hostName guestName
  provider { name meetingId }
  contactcenter { conversationId ccHostOrigin ccTargetEnv ccLangTag ccUsePopupAuth }
  participants { id: participantId providerParticipantId role name joinedAt leftAt billedMinutes }
  usage { participantMinutes }
  recordings { id: recordingId providerArchiveId url status createdAt updatedAt }`;

export const codeOf = (res: { body: { errors?: { extensions?: Record<string, any> }[] } }) => res.body.errors?.[0]?.extensions?.code;

export const sameInstant = '2026-04-01T00:00:00.000Z';

/** Calls 100-106 a minute apart, except 103 and 104: newer, sharing created_at, so the id breaks the tie. */
const seedListedCalls = (server: TestServer, appId: string) =>
  importRecords(
    server,
    appId,
    [100, 101, 102, 103, 104, 105, 106].map((n) =>
      videoCall(n, { status: n % 3 === 0 ? 'ended' : 'active', ...(n === 103 || n === 104 ? { createdAt: sameInstant } : {}) }),
    ),
  );

/** A tenant of its own holding the listed calls. */
export async function listedCallsTenant(server: TestServer) {
  const lister = await server.tenant({ scopes: ['video:read', 'scheduling:write'] });
  await seedListedCalls(server, lister.appId);
  return lister;
}

export const LIST_CALLS = `query($app: UUID!, $first: Int, $after: String, $status: VideoCallStatus) {
    videoCalls(appId: $app, first: $first, after: $after, status: $status) {
      limit edges { cursor node { callId status participants { id: participantId } recordings { id: recordingId } usage { participantMinutes } } }
      pageInfo { hasNextPage endCursor }
    }
  }`;

export const t0 = Date.parse('2026-05-01T10:00:00.000Z');

export const SHORT = `callId status participants { id: participantId providerParticipantId role joinedAt leftAt billedMinutes } usage { participantMinutes } recordings { providerArchiveId url status createdAt updatedAt }`;

/** createVideoCall and the provider-event mutations as `tenant`; the events go to the call `call()` names when they run. */
export function videoMutations(server: TestServer, tenant: Tenant, call: () => string) {
  const q = (query: string, variables: Record<string, unknown>, token = tenant.accessToken) => gql(server.url, token, query, variables);
  return {
    create: (input: Record<string, unknown>, token = tenant.accessToken, appId = tenant.appId) =>
      q(`mutation($app: UUID!, $input: CreateVideoCallInput!) { createVideoCall(appId: $app, input: $input) { ${CALL} appId } }`, { app: appId, input }, token),
    joined: (who: string, role: string, at: number) =>
      q(`mutation($app: UUID!, $call: UUID!, $who: String!, $role: VideoParticipantRole!, $at: DateTime) {
      recordVideoParticipantJoined(appId: $app, callId: $call, providerParticipantId: $who, role: $role, name: "N", at: $at) { ${SHORT} } }`,
        { app: tenant.appId, call: call(), who, role, at: iso(at) }),
    left: (who: string, at: number) =>
      q(`mutation($app: UUID!, $call: UUID!, $who: String!, $at: DateTime) {
      recordVideoParticipantLeft(appId: $app, callId: $call, providerParticipantId: $who, at: $at) { ${SHORT} } }`,
        { app: tenant.appId, call: call(), who, at: iso(at) }),
    ended: (at: number) =>
      q(`mutation($app: UUID!, $call: UUID!, $at: DateTime) { recordVideoCallEnded(appId: $app, callId: $call, at: $at) { ${SHORT} } }`,
        { app: tenant.appId, call: call(), at: iso(at) }),
    recording: (archive: string, status: string, at: number, url?: string) =>
      q(`mutation($app: UUID!, $call: UUID!, $archive: String!, $status: VideoRecordingStatus!, $url: String, $at: DateTime) {
      recordVideoRecordingStatus(appId: $app, callId: $call, providerArchiveId: $archive, status: $status, url: $url, at: $at) { ${SHORT} } }`,
        { app: tenant.appId, call: call(), archive, status, url, at: iso(at) }),
  };
}

/**
 * A video call's whole life through GraphQL, each step an event of the log: created, a
 * participant joining and leaving, a recording processing, the call ended. `run` executes a
 * document with `$app` bound and returns its `data`. Returns the video call's id.
 */
export async function videoCallLifecycle(run: (query: string, variables: Record<string, unknown>) => Promise<Record<string, any>>): Promise<string> {
  const created = await run('mutation($app: UUID!, $cc: VideoContactCenterInput!) { createVideoCall(appId: $app, input: { presetId: "p", contactcenter: $cc }) { callId } }', { cc: contactcenter });
  const call = { call: created.createVideoCall.callId as string };
  await run('mutation($app: UUID!, $call: UUID!) { recordVideoParticipantJoined(appId: $app, callId: $call, providerParticipantId: "g-1", role: participant, name: "G") { callId } }', call);
  await run('mutation($app: UUID!, $call: UUID!) { recordVideoParticipantLeft(appId: $app, callId: $call, providerParticipantId: "g-1") { callId } }', call);
  await run('mutation($app: UUID!, $call: UUID!) { recordVideoRecordingStatus(appId: $app, callId: $call, providerArchiveId: "a-1", status: processing) { callId } }', call);
  await run('mutation($app: UUID!, $call: UUID!) { recordVideoCallEnded(appId: $app, callId: $call) { callId } }', call);
  return call.call;
}
