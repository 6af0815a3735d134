import { describe, expect, it } from 'vitest';
import { applyStatusUpdate, type DeliveryState } from '../../src/sends/delivery-status.js';
import { bodyPlaceholders, hasFlowButton } from '../../src/sends/template-fill.js';

const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 10, 0, s));
const queued: DeliveryState = { status: 'queued', sentAt: null, deliveredAt: null, readAt: null, failedAt: null, errorMessage: null };

describe('applyStatusUpdate', () => {
  it.each([
    ['queued', 'sent', 'sent', true],
    ['queued', 'read', 'read', true],
    ['sent', 'delivered', 'delivered', true],
    ['delivered', 'sent', 'delivered', false],
    ['read', 'delivered', 'read', false],
    ['read', 'read', 'read', false],
    ['queued', 'failed', 'failed', true],
    ['sent', 'failed', 'failed', true],
    ['delivered', 'failed', 'delivered', false],
    ['read', 'failed', 'read', false],
    ['failed', 'delivered', 'failed', false],
    ['failed', 'failed', 'failed', false],
  ] as const)('%s + %s stays or moves to %s (moved: %s)', (from, update, to, moved) => {
    const result = applyStatusUpdate({ ...queued, status: from }, { status: update, at: t(5) });
    expect(result.state.status).toBe(to);
    expect(result.moved).toBe(moved);
  });

  it('read first implies sent_at and delivered_at; the real ones replace them when earlier', () => {
    let { state } = applyStatusUpdate(queued, { status: 'read', at: t(3) });
    expect(state).toMatchObject({ sentAt: t(3), deliveredAt: t(3), readAt: t(3) });
    ({ state } = applyStatusUpdate(state, { status: 'delivered', at: t(2) }));
    ({ state } = applyStatusUpdate(state, { status: 'sent', at: t(1) }));
    expect(state).toMatchObject({ status: 'read', sentAt: t(1), deliveredAt: t(2), readAt: t(3) });
  });

  it('a refused failure leaves the state untouched', () => {
    const read = { ...queued, status: 'read', readAt: t(1) };
    expect(applyStatusUpdate(read, { status: 'failed', at: t(2), errorMessage: 'x' }).state).toBe(read);
  });
});

describe('template placeholders and Flow buttons', () => {
  it.each([
    ['Hi {{1}}, your order {{2}} shipped', ['1', '2']],
    ['{{1}} and {{1}} again, then {{ 2 }}', ['1', '2']],
    ['Hello {{first_name}}', ['first_name']],
    ['No placeholders', []],
  ])('%s has placeholders %j', (body, expected) => {
    expect(bodyPlaceholders(body)).toEqual(expected);
  });

  it('finds a FLOW button in any case only', () => {
    expect(hasFlowButton([{ type: 'QUICK_REPLY', text: 'x' }, { type: 'flow', text: 'Book' }])).toBe(true);
    expect(hasFlowButton([{ type: 'URL', text: 'x', url: 'https://x' }])).toBe(false);
    expect(hasFlowButton(null)).toBe(false);
  });
});
