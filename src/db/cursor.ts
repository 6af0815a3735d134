import * as crypto from 'node:crypto';
import { isoInstant } from '../time/iso-instant.js';

/**
 * Keyset cursors: opaque base64url of the last row's (created_at, id), bound
 * to the list they came from by an HMAC under a server key, so a cursor the server did not issue
 * (edited, foreign, or built by a client that knows the format) is refused rather than
 * positioning the page. The key is derived from the JWT signing keys (auth/keys.ts): shared by
 * every instance through the database (or JWT_PRIVATE_JWK), rotated with them; cursors made
 * under any still-active key are accepted, so a rotation does not break a paging client.
 */
export interface CursorPosition {
  createdAt: Date;
  id: string;
}

/** HMAC keys: the first signs, every one verifies. */
export type CursorKeys = readonly Buffer[];

/** The cursor key of one signing key: HKDF of its private scalar, never the scalar itself. */
export function cursorKeyOf(privateScalar: string): Buffer {
  return Buffer.from(crypto.hkdfSync('sha256', Buffer.from(privateScalar, 'base64url'), Buffer.alloc(0), 'switchboard keyset cursor', 32));
}

// 128 bits of HMAC-SHA256, base64url.
const mac = (key: Buffer, list: string, payload: string) => crypto.createHmac('sha256', key).update(`${list}\u0000${payload}`).digest().subarray(0, 16).toString('base64url');

/** A signed cursor over a payload as given (tests forge payloads the service never makes with it). */
export function signCursorPayload(keys: CursorKeys, list: string, payload: string): string {
  return Buffer.from(JSON.stringify([payload, mac(keys[0]!, list, payload)])).toString('base64url');
}

export function encodeCursor(keys: CursorKeys, list: string, position: CursorPosition): string {
  return signCursorPayload(keys, list, JSON.stringify([isoInstant(position.createdAt), position.id]));
}

// What isoInstant writes for years 1000-9999 (and toISOString for 0001-0999): nothing else is a position.
const ISO_INSTANT = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// A text id (messages keep the provider's id): what a text column holds and an index compares.
const isTextId = (id: string) => id.length > 0 && id.length <= 256 && !id.includes('\u0000') && (id as string & { isWellFormed(): boolean }).isWellFormed();

/** How a list's ids look: UUIDs, or text (messages). */
export type IdKind = 'uuid' | 'text';

/** Returns undefined for anything that is not a cursor this list issued under one of `keys`. */
export function decodeCursor(keys: CursorKeys, list: string, cursor: string, ids: IdKind = 'uuid'): CursorPosition | undefined {
  if (!/^[A-Za-z0-9_-]{1,512}$/.test(cursor)) return undefined;
  try {
    const [payload, sum] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [unknown, unknown];
    if (typeof payload !== 'string' || typeof sum !== 'string' || !keys.some((key) => safeEqual(sum, mac(key, list, payload)))) return undefined;
    // Signed by this service, and still checked: no value reaches SQL that its column would refuse.
    const [iso, id] = JSON.parse(payload) as [unknown, unknown];
    if (typeof iso !== 'string' || typeof id !== 'string' || !ISO_INSTANT.test(iso) || !(ids === 'uuid' ? UUID.test(id) : isTextId(id))) return undefined;
    const createdAt = new Date(iso);
    const year = createdAt.getUTCFullYear();
    return Number.isNaN(createdAt.getTime()) || year < 1 || year > 9999 || isoInstant(createdAt) !== iso ? undefined : { createdAt, id };
  } catch {
    return undefined;
  }
}

const safeEqual = (a: string, b: string) => a.length === b.length && crypto.timingSafeEqual(Buffer.from(a), Buffer.from(b));
