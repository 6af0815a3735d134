// Video call and recording states and the moves between them (docs/graphql.md "Video calls").
// Pure: the service reads the current state, asks here, and writes the answer in the same
// transaction. A refused move is a 409 conflict at the edge.

export const callStatuses = ['created', 'active', 'ended'] as const;
export type CallStatus = (typeof callStatuses)[number];

export const recordingStatuses = ['processing', 'available', 'failed'] as const;
export type RecordingStatus = (typeof recordingStatuses)[number];

export const participantRoles = ['host', 'participant'] as const;

/** What happened to a call, as the provider reports it. */
export type CallEvent = 'participant_joined' | 'participant_left' | 'call_ended' | 'recording_status';

export type Move<S> = { ok: true; to: S } | { ok: false; reason: string };

/**
 * created → active on the first join; created or active → ended on the provider's end event
 * (the last participant leaving does not end a call: anyone may rejoin until the provider ends
 * it). Nothing moves out of ended, and nothing moves back to created.
 */
export function callMove(from: CallStatus, event: CallEvent): Move<CallStatus> {
  switch (event) {
    case 'participant_joined':
      return from === 'ended' ? { ok: false, reason: 'the call has ended' } : { ok: true, to: 'active' };
    case 'participant_left':
      return from === 'active' ? { ok: true, to: 'active' } : { ok: false, reason: `the call is ${from}, not active` };
    case 'call_ended':
      return from === 'ended' ? { ok: false, reason: 'the call has already ended' } : { ok: true, to: 'ended' };
    case 'recording_status':
      // A recording exists once someone joined; it may finish processing after the call ended.
      return from === 'created' ? { ok: false, reason: 'the call has not started' } : { ok: true, to: from };
  }
}

/**
 * A new recording may start in any status; processing → available | failed; repeating the
 * current status is accepted (an available recording's URL may be refreshed: download URLs
 * expire). available and failed are final: any other move is refused.
 */
export function recordingMove(from: RecordingStatus | undefined, to: RecordingStatus): Move<RecordingStatus> {
  if (from === undefined || from === to || from === 'processing') return { ok: true, to };
  return { ok: false, reason: `the recording is ${from} and cannot become ${to}` };
}
