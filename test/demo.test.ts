import { describe, expect, it } from 'vitest';
import { scopes } from '../src/auth/scopes.js';
import { bootstrapDemo, demoBanner } from '../src/demo/bootstrap.js';
import { graphiqlTabs } from '../src/http/graphiql-examples.js';
import { gql, request } from './helpers/http.js';
import { issueToken } from './helpers/server.js';
import { useServer } from './helpers/use-server.js';

const { server } = useServer();

describe('first start on empty storage', () => {
  it('creates a demo app and an all-scopes client once; the secret is returned only that time', async () => {
    const demo = await bootstrapDemo(server.runtime);
    expect(demo).toBeDefined();
    expect(await bootstrapDemo(server.runtime)).toBeUndefined();
    const token = await issueToken(server.url, demo!.clientId, demo!.clientSecret);
    const res = await gql(server.url, token, '{ viewer { scopes appIds } }');
    expect(res.body.data.viewer.appIds).toEqual([demo!.appId]);
    expect([...res.body.data.viewer.scopes].sort()).toEqual([...scopes].sort());

    // GraphiQL's scheduling tab runs as it stands on the demo app: slots, then a booking.
    const tab = graphiqlTabs.find((t) => t.query.includes('mutation BookCall'))!;
    const variables = { ...JSON.parse(tab.variables), appId: demo!.appId };
    const slots = await request(`${server.url}/graphql`, { token, json: { query: tab.query, variables, operationName: 'Availability' } });
    expect(slots.body.data.availability.slots.length).toBeGreaterThan(0);
    const booked = await request(`${server.url}/graphql`, { token, json: { query: tab.query, variables, operationName: 'BookCall' } });
    expect(booked.body.errors, JSON.stringify(booked.body.errors)).toBeUndefined();
    expect(booked.body.data.createScheduledCall.status).toBe('scheduled');

    // The Sends tab: OpenWindow, then SendFlow goes out.
    const sends = graphiqlTabs.find((t) => t.query.includes('mutation SendFlow'))!;
    const sendVariables = { ...JSON.parse(sends.variables), appId: demo!.appId };
    const opened = await request(`${server.url}/graphql`, { token, json: { query: sends.query, variables: sendVariables, operationName: 'OpenWindow' } });
    expect(opened.body.errors, JSON.stringify(opened.body.errors)).toBeUndefined();
    expect(opened.body.data.ingestInboundEvent).toMatchObject({ event: 'message', applied: true, message: { direction: 'inbound' } });
    const sent = await request(`${server.url}/graphql`, { token, json: { query: sends.query, variables: sendVariables, operationName: 'SendFlow' } });
    expect(sent.body.errors, JSON.stringify(sent.body.errors)).toBeUndefined();
    expect(sent.body.data.sendMessage.message).toMatchObject({ status: 'queued', kind: 'flow' });

    // The Video tab lists the demo's call, and the video host's lookup answers it.
    const video = graphiqlTabs.find((t) => t.query.includes('query VideoCalls'))!;
    const calls = await request(`${server.url}/graphql`, { token, json: { query: video.query, variables: { ...JSON.parse(video.variables), appId: demo!.appId } } });
    expect(calls.body.errors, JSON.stringify(calls.body.errors)).toBeUndefined();
    const [call] = calls.body.data.videoCalls.nodes;
    expect(call).toMatchObject({ status: 'ended', usage: { participantMinutes: 31 + 28 } });
    expect(call.participants.map((p: { role: string }) => p.role)).toEqual(['host', 'participant']);
    expect(call.recordings).toEqual([expect.objectContaining({ status: 'available' })]);
    const lookup = await request(`${server.videoUrl}/api/calls/${call.callId}`, { token });
    expect(lookup.status).toBe(200);
    expect(lookup.body.data).toMatchObject({ callId: call.callId, status: 'ended', title: 'Demo consultation' });
  });

  it('the banner carries the credentials and a curl line for the token endpoint', () => {
    const banner = demoBanner({ appId: 'APP', clientId: 'CID', clientSecret: 'SECRET' }, 'http://localhost:3000');
    expect(banner).toContain('APP');
    expect(banner).toContain('"client_id":"CID","client_secret":"SECRET"');
    expect(banner).toContain('curl -s http://localhost:3000/api/v1/oauth/token');
  });
});
