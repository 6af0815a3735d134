// Side-effect imports of every domain's Pothos file, sorted; nothing else, so adding a domain is one line.
import '../analytics/campaigns.graphql.js';
import '../analytics/messages.graphql.js';
import '../analytics/metrics.graphql.js';
import '../analytics/templates.graphql.js';
import '../apps/graphql.js';
import '../auth/graphql.js';
import '../scheduling/agents.graphql.js';
import '../scheduling/availability.graphql.js';
import '../scheduling/calls.graphql.js';
import '../scheduling/subscriptions.graphql.js';
import '../sends/graphql.js';
import '../video/graphql.js';
import '../webhooks/graphql.js';
import { builder } from './builder.js';
import { withDeadlines } from './deadline.js';

// Every operation stops at its request's deadline (deadline.ts).
export const schema = withDeadlines(builder.toSchema({ sortSchema: true }));
