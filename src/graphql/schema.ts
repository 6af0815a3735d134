// Side-effect imports of every domain's Pothos file, sorted; nothing else, so adding a domain is one line.
import '../analytics/campaigns.graphql.js';
import '../analytics/messages.graphql.js';
import '../analytics/metrics.graphql.js';
import '../analytics/templates.graphql.js';
import '../apps/graphql.js';
import '../auth/graphql.js';
import '../events/graphql.js';
import '../scheduling/agents.graphql.js';
import '../scheduling/availability.graphql.js';
import '../scheduling/calls.graphql.js';
import '../scheduling/policy.graphql.js';
import '../scheduling/subscriptions.graphql.js';
import '../sends/inbound.graphql.js';
import '../sends/kinds/flow.graphql.js';
import '../sends/kinds/product-list.graphql.js';
import '../sends/kinds/template.graphql.js';
import '../sends/sends.graphql.js';
import '../sends/sent-messages.graphql.js';
import '../video/calls.graphql.js';
import '../video/scheduled.graphql.js';
import '../video/participants.graphql.js';
import '../video/recordings.graphql.js';
import '../webhooks/graphql.js';
import { builder } from './builder.js';
import { withDeadlines } from './deadline.js';

// Every operation stops at its request's deadline (deadline.ts).
export const schema = withDeadlines(builder.toSchema({ sortSchema: true }));
