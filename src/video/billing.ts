// billedMinutes are whole minutes connected, rounded up, counted up to `now`
// while the participant is still connected (leftAt null); usage.participantMinutes is their sum.

export interface Session {
  joinedAt: Date;
  leftAt: Date | null;
}

const MINUTE_MS = 60_000;
/**
 * The largest GraphQL Int: the sum saturates there (about 4,000 years of minutes) rather than fail
 * the whole call; a thousand sessions connected for four years each would reach it.
 */
export const MAX_BILLED_MINUTES = 2_147_483_647;

/** Whole minutes from joinedAt to leftAt (or `now`), rounded up; never negative (a join stamped in the future bills 0). */
export function billedMinutes(session: Session, now: Date): number {
  const end = session.leftAt ?? now;
  const connectedMs = end.getTime() - session.joinedAt.getTime();
  return connectedMs <= 0 ? 0 : Math.min(Math.ceil(connectedMs / MINUTE_MS), MAX_BILLED_MINUTES);
}

/** Each session with its billed minutes, and their sum, against one clock reading so they agree. */
export function billCall<S extends Session>(sessions: readonly S[], now: Date): { sessions: (S & { billedMinutes: number })[]; participantMinutes: number } {
  const billed = sessions.map((s) => ({ ...s, billedMinutes: billedMinutes(s, now) }));
  return { sessions: billed, participantMinutes: Math.min(billed.reduce((sum, s) => sum + s.billedMinutes, 0), MAX_BILLED_MINUTES) };
}
