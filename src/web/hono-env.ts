import type { RequestContext } from '../runtime.js';

/** Hono variables set by the middleware chain. */
export interface HttpEnv {
  Variables: {
    requestId: string;
    requestContext: RequestContext;
  };
}
