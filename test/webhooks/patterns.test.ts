import { describe, expect, it } from 'vitest';
import { eventTypes } from '../../src/events/types.js';
import { isSubscriptionPattern, legacyWebhookTypes, patternsSelecting, PING_TYPE, receives, SUBSCRIPTION_PATTERN_MAX_LENGTH, typesReceived } from '../../src/webhooks/patterns.js';

// What a subscription may list and which deliveries that selects: the pure core of the outbox's match.

describe('isSubscriptionPattern', () => {
  it.each(['message.received', 'scheduled_call.*', '*', 'scheduled.cancelled', 'scheduled.reminder', 'webhook_endpoint.disabled'])('accepts %s', (p) => {
    expect(isSubscriptionPattern(p)).toBe(true);
  });
  it.each(['message.bogus', 'scheduled.*', 'nothing.*', '**', 'message.', '', 'Message.received', 'webhook.ping', 'webhook.*', ' message.received'])('refuses %j', (p) => {
    expect(isSubscriptionPattern(p)).toBe(false);
  });
  it('bounds an entry by the longest type name', () => {
    expect(SUBSCRIPTION_PATTERN_MAX_LENGTH).toBe(Math.max(...[...eventTypes, ...legacyWebhookTypes].map((t) => t.length)));
  });
});

describe('receives', () => {
  it('a group wildcard selects every type of its group and nothing else', () => {
    expect(receives(['scheduled_call.*'], 'scheduled_call.created')).toBe(true);
    expect(receives(['scheduled_call.*'], 'scheduled_call.no_show')).toBe(true);
    expect(receives(['scheduled_call.*'], 'video_call.ended')).toBe(false);
  });
  it('* selects every catalogue type but no legacy scheduled.* type, so no change arrives twice', () => {
    for (const type of eventTypes) expect(receives(['*'], type)).toBe(true);
    for (const type of legacyWebhookTypes) expect(receives(['*'], type)).toBe(false);
  });
  it('a legacy type is selected by its exact name only', () => {
    expect(receives(['scheduled.cancelled'], 'scheduled.cancelled')).toBe(true);
    expect(receives(['scheduled.cancelled'], 'scheduled.created')).toBe(false);
    expect(receives(['scheduled.cancelled'], 'scheduled_call.cancelled')).toBe(false);
  });
  it('no pattern selects the test delivery', () => {
    expect(receives(['*', 'webhook_endpoint.*'], PING_TYPE)).toBe(false);
  });
});

describe('patternsSelecting', () => {
  it('a catalogue type is selected by itself, its group wildcard and *', () => {
    expect(patternsSelecting('video_call.participant_joined')).toEqual(['video_call.participant_joined', 'video_call.*', '*']);
  });
  it('a legacy type only by itself; the test delivery by nothing', () => {
    expect(patternsSelecting('scheduled.reminder')).toEqual(['scheduled.reminder']);
    expect(patternsSelecting(PING_TYPE)).toEqual([]);
  });
  it('agrees with receives for every type and every single-entry list', () => {
    const patterns = ['*', ...new Set(eventTypes.map((t) => `${t.split('.')[0]}.*`)), ...eventTypes, ...legacyWebhookTypes];
    for (const type of [...eventTypes, ...legacyWebhookTypes, PING_TYPE]) {
      for (const p of patterns) expect(patternsSelecting(type).includes(p), `${p} ${type}`).toBe(receives([p], type));
    }
  });
});

describe('typesReceived', () => {
  it('lists legacy types, then the catalogue types the wildcards expand to, in catalogue order', () => {
    expect(typesReceived(['video_call.*', 'scheduled.cancelled', 'message.received'])).toEqual([
      'scheduled.cancelled',
      'message.received',
      'video_call.created',
      'video_call.participant_joined',
      'video_call.participant_left',
      'video_call.ended',
    ]);
    expect(typesReceived(['*'])).toEqual([...eventTypes]);
  });
});
