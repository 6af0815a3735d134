import { describe, expect, it } from 'vitest';
import { eventTypes, isEventPattern, matchesEventType, typesMatching } from '../../src/events/types.js';

describe('event type patterns', () => {
  it.each([
    ['message.received', true],
    ['scheduled_call.*', true],
    ['*', true],
    ['scheduled_call', false],
    ['scheduled.*', false],
    ['message.*.x', false],
    ['message.recieved', false],
    ['', false],
  ])('%j is a pattern: %s', (pattern, valid) => {
    expect(isEventPattern(pattern)).toBe(valid);
  });

  it('a group wildcard selects its group only', () => {
    expect(typesMatching(['video_call.*'])).toEqual([
      'video_call.created',
      'video_call.participant_joined',
      'video_call.participant_left',
      'video_call.ended',
    ]);
    expect(matchesEventType(['message.*'], 'messages.received')).toBe(false);
  });

  it('* selects every type; no pattern selects none', () => {
    expect(typesMatching(['*'])).toEqual([...eventTypes]);
    expect(typesMatching([])).toEqual([]);
  });
});
