import { describe, expect, it } from 'vitest';
import { callMove, recordingMove, type CallEvent, type CallStatus, type RecordingStatus } from '../../src/video/lifecycle.js';

describe('callMove: created → active (first join) → ended (provider end event), never back', () => {
  it.each<[CallStatus, CallEvent, CallStatus | 'refused']>([
    ['created', 'participant_joined', 'active'],
    ['active', 'participant_joined', 'active'],
    ['ended', 'participant_joined', 'refused'],
    ['created', 'participant_left', 'refused'],
    ['active', 'participant_left', 'active'],
    ['ended', 'participant_left', 'refused'],
    ['created', 'call_ended', 'ended'],
    ['active', 'call_ended', 'ended'],
    ['ended', 'call_ended', 'refused'],
    ['created', 'recording_status', 'refused'],
    ['active', 'recording_status', 'active'],
    ['ended', 'recording_status', 'ended'],
  ])('%s + %s → %s', (from, event, expected) => {
    const move = callMove(from, event);
    expect(move.ok ? move.to : 'refused').toBe(expected);
    if (!move.ok) expect(move.reason).toMatch(/call/);
  });
});

describe('recordingMove: processing → available | failed; final states stay', () => {
  it.each<[RecordingStatus | undefined, RecordingStatus, boolean]>([
    [undefined, 'processing', true],
    [undefined, 'available', true],
    [undefined, 'failed', true],
    ['processing', 'processing', true],
    ['processing', 'available', true],
    ['processing', 'failed', true],
    ['available', 'available', true],
    ['available', 'processing', false],
    ['available', 'failed', false],
    ['failed', 'failed', true],
    ['failed', 'processing', false],
    ['failed', 'available', false],
  ])('%s → %s allowed: %s', (from, to, allowed) => {
    expect(recordingMove(from, to).ok).toBe(allowed);
  });
});
