import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { messagesDeep } from '../../bench/scenarios/messages.js';
import type { ScenarioContext } from '../../bench/types.js';
import { appList, cursorPosition } from '../../src/db/keyset.js';

describe('bench: messages_deep_cursor', () => {
  it("builds a cursor the service takes for the dataset's app (and only for it)", () => {
    const appId = '0b9be3fa-823f-488d-8658-fb83cf159667';
    const deep = { createdAt: '2026-09-11T08:22:26.177Z', id: '7d1f2a36-3c52-4a4e-9d0b-1c2d3e4f5a6b' };
    const key = randomBytes(32);
    const ctx = { dataset: { appId, probe: { deep, cursorKey: key.toString('base64url') } }, token: 't' } as unknown as ScenarioContext;
    const cursor = new URL(messagesDeep.request(ctx).path, 'http://x').searchParams.get('cursor')!;
    const position = cursorPosition([key], appList('messages', appId), cursor, 'text');
    expect(position).toEqual({ createdAt: new Date(deep.createdAt), id: deep.id });
    expect(() => cursorPosition([key], appList('messages', 'a89e6aaa-3cde-47c4-bbb9-b86d27f73d81'), cursor, 'text')).toThrow();
  });
});
