import * as crypto from 'node:crypto';
import { isoInstant } from '../time/iso-instant.js';

/**
 * Keyset cursors (DESIGN section 6): opaque base64url of the last row's (created_at, id), bound
 * to the list they came from by a check value, so an edited or foreign cursor is refused
 * rather than silently repositioning the page. An integrity check, not a secret.
 */
export interface CursorPosition {
  createdAt: Date;
  id: string;
}

/** One-shot `crypto.hash` (Node 20.12+; a third of createHash's cost a call) where it exists. */
const sha256 = (text: string): string =>
  typeof crypto.hash === 'function' ? crypto.hash('sha256', text, 'base64url') : crypto.createHash('sha256').update(text).digest('base64url');

const check = (list: string, payload: string) => sha256(`${list}\u0000${payload}`).slice(0, 12);

export function encodeCursor(list: string, position: CursorPosition): string {
  const payload = JSON.stringify([isoInstant(position.createdAt), position.id]);
  return Buffer.from(JSON.stringify([payload, check(list, payload)])).toString('base64url');
}

/** Returns undefined for anything that is not a cursor this list issued. */
export function decodeCursor(list: string, cursor: string): CursorPosition | undefined {
  if (!/^[A-Za-z0-9_-]{1,512}$/.test(cursor)) return undefined;
  try {
    const [payload, sum] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [unknown, unknown];
    if (typeof payload !== 'string' || sum !== check(list, payload)) return undefined;
    const [iso, id] = JSON.parse(payload) as [unknown, unknown];
    if (typeof iso !== 'string' || typeof id !== 'string') return undefined;
    const createdAt = new Date(iso);
    return Number.isNaN(createdAt.getTime()) ? undefined : { createdAt, id };
  } catch {
    return undefined;
  }
}
