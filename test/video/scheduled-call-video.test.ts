import { beforeAll, describe, expect, it } from 'vitest';
import { gql, request } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';
import { booker, seedAgents } from '../realtime/timeline.fixtures.js';

// A scheduled call's video call: created on demand once, linked both ways, and its end
// completes the booking with one event in the app event log.
const { server, tenant } = useServer({ tenant: true });
beforeAll(() => seedAgents(server, tenant.appId));

const contactcenter = { conversationId: 'c', ccHostOrigin: 'o', ccTargetEnv: 'e', ccLangTag: 'en', ccUsePopupAuth: false };
const book = booker(server);
const START = `mutation($app: UUID!, $id: UUID!, $cc: VideoContactCenterInput!) {
  startScheduledCallVideo(appId: $app, callId: $id, input: { presetId: "p", contactcenter: $cc }) { callId status contactcenter { conversationId } scheduledCall { callId } } }`;
const LINKED = `query($app: UUID!, $id: UUID!) { scheduledCall(appId: $app, id: $id) { callId status videoCall { callId status } } }`;

type Body = { data?: Record<string, any> | null; errors?: { message: string; extensions?: { code?: string } }[] };
const run = async (query: string, variables: Record<string, unknown>, token = tenant.accessToken, app = tenant.appId) =>
  (await gql(server.url, token, query, { app, ...variables })).body as Body;
const start = (id: string, token?: string, app?: string) => run(START, { id, cc: contactcenter }, token, app);

describe('startScheduledCallVideo', () => {
  it('creates the video call once and links both sides', async () => {
    const id = await book(tenant, 3, 10);
    const first = await start(id);
    expect(first.errors).toBeUndefined();
    const video = first.data!.startScheduledCallVideo;
    expect(video).toMatchObject({ status: 'created', contactcenter: { conversationId: 'c' }, scheduledCall: { callId: id } });
    const again = await start(id);
    expect(again.data!.startScheduledCallVideo.callId).toBe(video.callId);
    const linked = await run(LINKED, { id });
    expect(linked.data!.scheduledCall).toMatchObject({ callId: id, videoCall: { callId: video.callId, status: 'created' } });
    const events = await request(`${server.url}/api/v1/events/${tenant.appId}?types=video_call.created&limit=200`, { token: tenant.accessToken });
    expect(events.body.data.filter((e: { resource: { id: string } }) => e.resource.id === video.callId)).toHaveLength(1);
  });

  it('concurrent requests get one video call', async () => {
    const id = await book(tenant, 3, 12);
    const results = await Promise.all([start(id), start(id), start(id)]);
    const ids = new Set(results.map((r) => r.data?.startScheduledCallVideo.callId));
    expect(ids.size).toBe(1);
    expect([...ids][0]).toBeTypeOf('string');
  });

  it('refuses a cancelled call with conflict', async () => {
    const id = await book(tenant, 3, 14);
    const cancelled = await run('mutation($app: UUID!, $id: UUID!) { cancelScheduledCall(appId: $app, id: $id) { status } }', { id });
    expect(cancelled.errors).toBeUndefined();
    const res = await start(id);
    expect(res.errors?.[0]?.extensions?.code).toBe('conflict');
    expect((await run(LINKED, { id })).data!.scheduledCall.videoCall).toBeNull();
  });

  it("another app's token neither creates nor sees the link", async () => {
    const id = await book(tenant, 3, 16);
    const stranger = await server.tenant();
    // The stranger's own app, naming this app's call: not found.
    expect((await start(id, stranger.accessToken, stranger.appId)).errors?.[0]?.extensions?.code).toBe('not_found');
    // This app's id with the stranger's token: refused before anything is read.
    const foreign = await start(id, stranger.accessToken, tenant.appId);
    expect(foreign.data?.startScheduledCallVideo ?? null).toBeNull();
    expect(foreign.errors?.length).toBeGreaterThan(0);
    expect((await run(LINKED, { id })).data!.scheduledCall.videoCall).toBeNull();
    const mine = (await start(id)).data!.startScheduledCallVideo.callId as string;
    const seen = await run('query($app: UUID!, $id: UUID!) { videoCall(appId: $app, callId: $id) { scheduledCall { callId } } }', { id: mine }, stranger.accessToken, stranger.appId);
    expect(seen.data?.videoCall ?? null).toBeNull();
    expect(seen.errors?.[0]?.extensions?.code).toBe('not_found');
  });

  it('ending the video call completes the scheduled call, with one scheduled_call.completed event', async () => {
    const id = await book(tenant, 3, 18);
    const video = (await start(id)).data!.startScheduledCallVideo.callId as string;
    const ended = await run('mutation($app: UUID!, $id: UUID!) { recordVideoCallEnded(appId: $app, callId: $id) { status scheduledCall { status } } }', { id: video });
    expect(ended.errors).toBeUndefined();
    expect(ended.data!.recordVideoCallEnded).toEqual({ status: 'ended', scheduledCall: { status: 'completed' } });
    expect((await run(LINKED, { id })).data!.scheduledCall).toMatchObject({ status: 'completed', videoCall: { status: 'ended' } });
    const events = await request(`${server.url}/api/v1/events/${tenant.appId}?types=scheduled_call.completed&limit=200`, { token: tenant.accessToken });
    expect(events.status).toBe(200);
    expect(events.body.data.filter((e: { resource: { id: string } }) => e.resource.id === id)).toHaveLength(1);
    // A repeat once the call is completed returns the same video call: a retry never fails once the first got through.
    expect((await start(id)).data!.startScheduledCallVideo).toMatchObject({ callId: video, status: 'ended' });
  });
});
