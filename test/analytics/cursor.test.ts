import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, signCursorPayload } from '../../src/db/cursor.js';

const position = { createdAt: new Date('2026-03-08T14:00:00.123Z'), id: '7d1f2a36-3c52-4a4e-9d0b-1c2d3e4f5a6b' };
const current = randomBytes(32);
const previous = randomBytes(32);
const keys = [current, previous];

/** The unkeyed scheme cursors once used: anyone could compute its check value. */
const unkeyed = (list: string, payload: string) =>
  Buffer.from(JSON.stringify([payload, createHash('sha256').update(`${list}\u0000${payload}`).digest('base64url').slice(0, 12)])).toString('base64url');

describe('keyset cursors', () => {
  it('round-trip a position exactly', () => {
    expect(decodeCursor(keys, 'messages', encodeCursor(keys, 'messages', position))).toEqual(position);
  });

  it('accept a cursor of the previous key (rotation), refuse one of an unknown key', () => {
    const old = encodeCursor([previous], 'messages', position);
    expect(decodeCursor(keys, 'messages', old)).toEqual(position);
    expect(decodeCursor([randomBytes(32)], 'messages', old)).toBeUndefined();
  });

  it('text ids for lists that have them, UUIDs elsewhere', () => {
    const text = { ...position, id: 'wamid.HBgLMTU1NTAxMjM0NTY' };
    expect(decodeCursor(keys, 'messages', encodeCursor(keys, 'messages', text), 'text')).toEqual(text);
    expect(decodeCursor(keys, 'messages', encodeCursor(keys, 'messages', text))).toBeUndefined();
  });

  it.each([
    ['a cursor of another list', () => encodeCursor(keys, 'campaigns', position)],
    ['an edited payload', () => {
      const [payload, sum] = JSON.parse(Buffer.from(encodeCursor(keys, 'messages', position), 'base64url').toString()) as [string, string];
      return Buffer.from(JSON.stringify([payload.replace('7d1f', '8d1f'), sum])).toString('base64url');
    }],
    ['the unkeyed scheme', () => unkeyed('messages', JSON.stringify([position.createdAt.toISOString(), position.id]))],
    ['a signed non-UUID id', () => signCursorPayload(keys, 'messages', JSON.stringify(['2026-03-08T14:00:00.123Z', "x' or 1=1"]))],
    ['a signed year out of range', () => signCursorPayload(keys, 'messages', JSON.stringify(['+275760-09-13T00:00:00.000Z', position.id]))],
    ['a signed impossible date', () => signCursorPayload(keys, 'messages', JSON.stringify(['2026-02-31T00:00:00.000Z', position.id]))],
    ['a signed number for a date', () => signCursorPayload(keys, 'messages', JSON.stringify([1e308, position.id]))],
    ['garbage', () => 'not a cursor!'],
    ['valid base64 of nonsense', () => Buffer.from('[1,2]').toString('base64url')],
    ['empty', () => ''],
    ['very long', () => 'A'.repeat(600)],
  ])('refuse %s', (_name, make) => {
    expect(decodeCursor(keys, 'messages', make())).toBeUndefined();
  });
});
