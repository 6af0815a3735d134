import { randomUUID } from 'node:crypto';

/** The request's id: the caller's X-Request-Id when it is up to 128 word characters (`_ . : -` too), else a new UUID. */
export function requestIdOf(incoming: string | undefined): string {
  return incoming && /^[\w.:-]{1,128}$/.test(incoming) ? incoming : randomUUID();
}
