import { defineRoute } from '../rest/adapter.js';

// A video call as the video host returns it: every field (the GraphQL names match the REST ones).
export const videoCallFields = `
  callId status presetId title description metadata hostName guestName
  provider { name meetingId }
  contactcenter { conversationId ccHostOrigin ccTargetEnv ccLangTag ccUsePopupAuth }
  participants { id: participantId providerParticipantId role name joinedAt leftAt billedMinutes }
  usage { participantMinutes }
  recordings { id: recordingId providerArchiveId url status createdAt updatedAt }`;

/** GET {video_url}/api/calls/{callId}: no version segment; `{ ok: true, data }`, the video host's own envelope. */
export const videoCallLookupRoute = defineRoute<{ videoCallLookup: unknown }>({
  method: 'GET',
  path: '/api/calls/:callId',
  document: `query VideoHostLookup($callId: UUID!) { videoCallLookup(callId: $callId) { ${videoCallFields} } }`,
  respond: (data) => ({ body: { ok: true, data: data.videoCallLookup } }),
});
