import { analyticsRoutes } from '../analytics/rest.js';
import { revokeRoute } from '../auth/rest.js';
import { schedulingRoutes } from '../scheduling/rest.js';
import { sendRoutes } from '../sends/rest.js';
import { videoCallLookupRoute } from '../video/rest.js';
import type { RestRoute } from './adapter.js';

// Every v1 path that runs through the schema; each domain contributes its own list.
export const restRoutes: readonly RestRoute[] = [revokeRoute, ...analyticsRoutes, ...schedulingRoutes, ...sendRoutes];

// Every path of the video host ({video_url}/api/...), answered in its own envelope.
export const videoHostRoutes: readonly RestRoute[] = [videoCallLookupRoute];
