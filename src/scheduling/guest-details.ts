import { METADATA_MAX_KEYS, type BookingAnswer, type CallMetadata, type MetadataValue } from './fields.js';

// A call's metadata and booking answers as stored: none is null, never `{}` or `[]`, so a
// reader has one way to ask "are there any".

export const metadataOrNone = (metadata: CallMetadata | null | undefined): CallMetadata | null =>
  metadata && Object.keys(metadata).length > 0 ? metadata : null;

export const answersOrNone = (answers: BookingAnswer[] | null | undefined): BookingAnswer[] | null => (answers && answers.length > 0 ? answers : null);

/**
 * A PATCH's metadata over the stored one (JSON Merge Patch, RFC 7396, on a flat object): a key
 * given is set, a key given as null is removed, the others stay; `null` for the whole clears it.
 * `tooMany` is set when the result would hold more keys than a call may.
 */
export function mergeMetadata(
  stored: CallMetadata | null,
  patch: Record<string, MetadataValue | null> | null,
): { metadata: CallMetadata | null; tooMany?: number } {
  if (patch === null) return { metadata: null };
  const merged: CallMetadata = { ...stored };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  const count = Object.keys(merged).length;
  return count > METADATA_MAX_KEYS ? { metadata: merged, tooMany: count } : { metadata: metadataOrNone(merged) };
}

/** Whether two metadata objects hold the same pairs (key order aside, as jsonb ignores it). */
export function sameMetadata(a: CallMetadata | null, b: CallMetadata | null): boolean {
  if (a === null || b === null) return a === b;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && a[key] === b[key]);
}

/** Whether two answer lists are the same questions and answers in the same order. */
export function sameAnswers(a: BookingAnswer[] | null, b: BookingAnswer[] | null): boolean {
  if (a === null || b === null) return a === b;
  return a.length === b.length && a.every((x, i) => x.question === b[i]!.question && x.answer === b[i]!.answer);
}
