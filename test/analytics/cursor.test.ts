import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from '../../src/analytics/cursor.js';

const position = { createdAt: new Date('2026-03-08T14:00:00.123Z'), id: 'msg-1' };

describe('keyset cursors', () => {
  it('round-trip a position exactly', () => {
    expect(decodeCursor('messages', encodeCursor('messages', position))).toEqual(position);
  });

  it.each([
    ['a cursor of another list', () => encodeCursor('campaigns', position)],
    ['an edited payload', () => {
      const [payload, sum] = JSON.parse(Buffer.from(encodeCursor('messages', position), 'base64url').toString()) as [string, string];
      return Buffer.from(JSON.stringify([payload.replace('msg-1', 'msg-2'), sum])).toString('base64url');
    }],
    ['garbage', () => 'not a cursor!'],
    ['valid base64 of nonsense', () => Buffer.from('[1,2]').toString('base64url')],
    ['empty', () => ''],
    ['very long', () => 'A'.repeat(600)],
  ])('refuse %s', (_name, make) => {
    expect(decodeCursor('messages', make())).toBeUndefined();
  });
});
