import { randomBytes } from 'node:crypto';

// Event ids are UUIDv7 (RFC 9562): 48 bits of milliseconds, then random bits. The time they carry
// is the event's, so an id tells how old its event is even after the event has been pruned.

/** A UUIDv7 for an event that happened at `at`. */
export function eventId(at: Date): string {
  const bytes = randomBytes(16);
  const ms = BigInt(at.getTime());
  for (let i = 0; i < 6; i++) bytes[i] = Number((ms >> BigInt(8 * (5 - i))) & 0xffn);
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** When the event of a UUIDv7 id happened; undefined for an id of another version. */
export function eventTimeOf(id: string): Date | undefined {
  const hex = id.replaceAll('-', '').toLowerCase();
  if (!/^[0-9a-f]{32}$/.test(hex) || hex[12] !== '7') return undefined;
  return new Date(Number.parseInt(hex.slice(0, 12), 16));
}
