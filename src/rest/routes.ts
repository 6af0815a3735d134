import { analyticsRoutes } from '../analytics/rest.js';
import { revokeRoute } from '../auth/rest.js';
import { schedulingRoutes } from '../scheduling/rest.js';
import { sendRoutes } from '../sends/rest.js';
import type { RestRoute } from './adapter.js';

// Every v1 path that runs through the schema; each domain contributes its own list.
export const restRoutes: readonly RestRoute[] = [revokeRoute, ...analyticsRoutes, ...schedulingRoutes, ...sendRoutes];
