import { AppError } from '../errors/app-error.js';
import { sseStreamsRefused } from '../observability/metrics.js';

/**
 * Open streams per client and per app on this instance (STREAMS_PER_CLIENT, STREAMS_PER_APP):
 * one more is refused with 429 before it opens. Keys live only while a stream is open.
 */
export class StreamSlots {
  private readonly byClient = new Map<string, number>();
  private readonly byApp = new Map<string, number>();

  acquire(clientId: string, appId: string, limits: { STREAMS_PER_CLIENT: number; STREAMS_PER_APP: number }): () => void {
    if ((this.byClient.get(clientId) ?? 0) >= limits.STREAMS_PER_CLIENT) {
      sseStreamsRefused.inc({ cap: 'client' });
      throw new AppError('rate_limit_exceeded', `At most ${limits.STREAMS_PER_CLIENT} streams may be open per client: close one first`);
    }
    if ((this.byApp.get(appId) ?? 0) >= limits.STREAMS_PER_APP) {
      sseStreamsRefused.inc({ cap: 'app' });
      throw new AppError('rate_limit_exceeded', `At most ${limits.STREAMS_PER_APP} streams may be open per app: close one first`);
    }
    count(this.byClient, clientId, 1);
    count(this.byApp, appId, 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      count(this.byClient, clientId, -1);
      count(this.byApp, appId, -1);
    };
  }
}

function count(counts: Map<string, number>, key: string, by: number): void {
  const next = (counts.get(key) ?? 0) + by;
  if (next <= 0) counts.delete(key);
  else counts.set(key, next);
}
