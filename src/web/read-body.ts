import type { Context } from 'hono';
import type { HttpEnv } from './hono-env.js';

/**
 * The request body as text, decoded as the Fetch API's `text()` decodes it (UTF-8, a leading BOM
 * dropped), or undefined as soon as it passes `maxBytes` (the rest is not read). For small bodies
 * whose limit is below the listener's: a Content-Length is checked before this is called, a
 * chunked body is counted here as it streams in.
 */
export async function readTextUpTo(c: Context<HttpEnv>, maxBytes: number): Promise<string | undefined> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = c.req.raw.body?.getReader();
  if (!reader) return '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      reader.releaseLock();
      return undefined;
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}
