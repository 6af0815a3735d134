// How provider status updates move an outbound message. Updates arrive out of
// order and more than once; a message never moves backwards: queued < sent < delivered < read,
// and failed only from queued or sent (a delivered or read message did reach the phone).

export const deliveryStatuses = ['sent', 'delivered', 'read', 'failed'] as const;
export type DeliveryStatus = (typeof deliveryStatuses)[number];

const rank: Record<string, number> = { pending: 0, queued: 0, sent: 1, delivered: 2, read: 3 };

export interface DeliveryState {
  status: string;
  sentAt: Date | null;
  deliveredAt: Date | null;
  readAt: Date | null;
  failedAt: Date | null;
  errorMessage: string | null;
}

export interface StatusUpdate {
  status: DeliveryStatus;
  at: Date;
  errorMessage?: string | null;
}

const earliest = (current: Date | null, at: Date) => (current === null || at < current ? at : current);

/**
 * The state after `update`, and whether the status moved. Timestamps are facts and are kept even
 * when the status does not move: a late `delivered` after `read` records delivered_at. A later
 * stage implies the earlier ones, so `read` first also fills missing sent_at and delivered_at.
 */
export function applyStatusUpdate(state: DeliveryState, update: StatusUpdate): { state: DeliveryState; moved: boolean } {
  const next: DeliveryState = { ...state };
  const { at } = update;
  if (update.status === 'failed') {
    const canFail = state.status === 'failed' || (rank[state.status] ?? Number.POSITIVE_INFINITY) <= rank.sent!;
    if (!canFail) return { state, moved: false };
    next.failedAt = earliest(state.failedAt, at);
    next.errorMessage = update.errorMessage ?? state.errorMessage;
    next.status = 'failed';
    return { state: next, moved: state.status !== 'failed' };
  }
  const target = rank[update.status]!;
  if (target >= rank.sent!) next.sentAt = target === rank.sent ? earliest(state.sentAt, at) : (state.sentAt ?? at);
  if (target >= rank.delivered!) next.deliveredAt = target === rank.delivered ? earliest(state.deliveredAt, at) : (state.deliveredAt ?? at);
  if (target >= rank.read!) next.readAt = earliest(state.readAt, at);
  const current = rank[state.status];
  // A failed message stays failed (a stray late receipt does not revive it); unknown states too.
  const moved = current !== undefined && target > current;
  if (moved) next.status = update.status;
  return { state: next, moved };
}
