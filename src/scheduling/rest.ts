import { defineRoute, type RestRoute } from '../rest/adapter.js';
import { pagination, type Connection } from '../rest/list.js';

// The scheduling paths, through the schema. Their responses carry only `data` (no `meta`).

// A scheduled call's full record, in its REST snake_case names (plus what a booking and PATCH
// may also set: intake notes, metadata and answers to booking questions).
const callRecordFields = `
  id: callId app_id: appId assigned_agent_id: assignedAgentId booking_source: bookingSource
  guest_name: guestName guest_phone: guestPhone guest_email: guestEmail guest_timezone: guestTimezone
  guest_intake_notes: guestIntakeNotes metadata answers { question answer } scheduled_at: scheduledAt duration_minutes: durationMinutes
  app_timezone: appTimezone status created_at: createdAt
  cancelled_at: cancelledAt cancellation_reason: cancellationReason`;
const eventFields = 'id: eventId event_type: eventType actor_type: actorType actor_id: actorId payload created_at: createdAt';

type CallRecord = Record<string, unknown> & { cancelled_at: string | null; cancellation_reason: string | null };

/**
 * cancelled_at and cancellation_reason are part of the record only once the call is cancelled;
 * then the reason is a string, empty when none was given (an imported call may store none).
 */
function toCallBody(call: CallRecord): Record<string, unknown> {
  if (call.cancelled_at !== null) return { ...call, cancellation_reason: call.cancellation_reason ?? '' };
  const { cancelled_at: _at, cancellation_reason: _reason, ...rest } = call;
  return rest;
}

export const schedulingRoutes: RestRoute[] = [
  // `explain=true` answers from availabilityExplained, the same engine with every rejected
  // candidate and why; without it the document runs availability alone.
  defineRoute<{ availability?: { slots: unknown[] }; explained?: { slots: unknown[]; rejected: unknown[] } }>({
    method: 'GET',
    path: '/video/:appId/availability',
    document: `query RestAvailability($appId: UUID!, $fromUtc: DateTime!, $toUtc: DateTime!, $durationMinutes: Int!, $agentId: UUID,
      $stepMinutes: Int, $bufferBeforeMinutes: Int, $bufferAfterMinutes: Int, $respectWorkingHours: Boolean, $explain: Boolean = false) {
      availability(appId: $appId, fromUtc: $fromUtc, toUtc: $toUtc, durationMinutes: $durationMinutes, agentId: $agentId,
        stepMinutes: $stepMinutes, bufferBeforeMinutes: $bufferBeforeMinutes, bufferAfterMinutes: $bufferAfterMinutes,
        respectWorkingHours: $respectWorkingHours) @skip(if: $explain) { slots { startUtc endUtc agentId } }
      explained: availabilityExplained(appId: $appId, fromUtc: $fromUtc, toUtc: $toUtc, durationMinutes: $durationMinutes, agentId: $agentId,
        stepMinutes: $stepMinutes, bufferBeforeMinutes: $bufferBeforeMinutes, bufferAfterMinutes: $bufferAfterMinutes,
        respectWorkingHours: $respectWorkingHours) @include(if: $explain) {
        slots { startUtc endUtc agentId }
        rejected { startUtc endUtc agentId reasons { code id kind } }
      }
    }`,
    parameterDescriptions: {
      explain: '`true` also answers `data.rejected`: every candidate that is not a slot, with its reasons (as GraphQL availabilityExplained). Default `false`.',
    },
    respond: (data) => ({ body: { data: data.explained ?? { slots: data.availability!.slots } } }),
  }),
  defineRoute<{ scheduledCall: CallRecord & { events: unknown[] } }>({
    method: 'GET',
    path: '/video/:appId/scheduled-calls/:id',
    document: `query RestScheduledCall($appId: UUID!, $id: UUID!) {
      scheduledCall(appId: $appId, id: $id) { ${callRecordFields} events { ${eventFields} } }
    }`,
    respond: ({ scheduledCall: { events, ...call } }) => ({ body: { data: { call: toCallBody(call as CallRecord), events } } }),
  }),
  defineRoute<{ updateScheduledCall: unknown }>({
    method: 'PATCH',
    path: '/video/:appId/scheduled-calls/:id',
    body: { variable: 'input' },
    invalidJson: 'invalid_request',
    document: `mutation RestUpdateScheduledCall($appId: UUID!, $id: UUID!, $input: UpdateScheduledCallInput!) {
      updateScheduledCall(appId: $appId, id: $id, input: $input) { id: callId scheduled_at: scheduledAt status }
    }`,
    respond: (data) => ({ body: { data: { call: data.updateScheduledCall } } }),
  }),
  defineRoute<{ cancelScheduledCall: CallRecord }>({
    method: 'DELETE',
    path: '/video/:appId/scheduled-calls/:id',
    // The reason comes in the body as `reason`, or as query parameter `reason`: some clients and
    // proxies drop a DELETE's body.
    body: 'spread',
    invalidJson: 'invalid_request',
    document: `mutation RestCancelScheduledCall($appId: UUID!, $id: UUID!, $reason: String) {
      cancelScheduledCall(appId: $appId, id: $id, reason: $reason) {
        id: callId status cancelled_at: cancelledAt cancellation_reason: cancellationReason
      }
    }`,
    respond: (data) => ({ body: { data: { call: toCallBody(data.cancelScheduledCall) } } }),
  }),
  defineRoute<{ createScheduledCall: CallRecord }>({
    method: 'POST',
    path: '/video/:appId/scheduled-calls',
    body: { variable: 'input' },
    invalidJson: 'invalid_request',
    document: `mutation RestCreateScheduledCall($appId: UUID!, $input: CreateScheduledCallInput!) {
      createScheduledCall(appId: $appId, input: $input) { ${callRecordFields} }
    }`,
    respond: (data) => ({ status: 201, body: { data: { call: toCallBody(data.createScheduledCall) } } }),
  }),
  defineRoute<{ scheduledCalls: Connection<CallRecord> }>({
    method: 'GET',
    path: '/video/:appId/scheduled-calls',
    queryAliases: { limit: 'first', cursor: 'after' },
    document: `query RestScheduledCalls($appId: UUID!, $first: Int, $after: String, $status: ScheduledCallStatus, $agentId: UUID,
      $fromUtc: DateTime, $toUtc: DateTime, $guestEmail: String, $guestPhone: String) {
      scheduledCalls(appId: $appId, first: $first, after: $after, status: $status, agentId: $agentId, fromUtc: $fromUtc, toUtc: $toUtc,
        guestEmail: $guestEmail, guestPhone: $guestPhone) {
        limit pageInfo { hasNextPage endCursor } nodes { ${callRecordFields} }
      }
    }`,
    respond: ({ scheduledCalls: page }) => ({
      body: { data: page.nodes.map(toCallBody), pagination: pagination(page) },
    }),
  }),
];
