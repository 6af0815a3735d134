import type { FanoutScenario, PeersScenario, PendingScenario, Scenario, SustainedScenario } from '../types.js';
import { campaignsSearch } from './campaigns.js';
import { graphqlMessagesPage, messagesDeep, messagesFiltered, messagesPage, messagesPagePaced, messagesSearch } from './messages.js';
import { dailyMetrics, dailyMetricsAlone, summaryMetrics } from './metrics.js';
import { graphqlPeers } from './peers.js';
import { availabilityWorstCase, patchReschedule, sseFanout, sseFanout10k, sseSustained } from './scheduling.js';
import { tokenIssue } from './token.js';

/** Every runnable scenario, in table order. A new one is a module here plus a line below. */
export const scenarios: Scenario[] = [
  tokenIssue,
  messagesPage,
  messagesPagePaced,
  messagesFiltered,
  messagesSearch,
  messagesDeep,
  campaignsSearch,
  dailyMetrics,
  dailyMetricsAlone,
  summaryMetrics,
  graphqlMessagesPage,
  availabilityWorstCase,
  patchReschedule,
];

/** Not autocannon runs: held-open subscriptions and one write per round (bench/sse.ts). */
export const fanoutScenarios: FanoutScenario[] = [sseFanout, sseFanout10k];

/** Held-open subscriptions under a steady stream of writes (bench/sse-sustained.ts). */
export const sustainedScenarios: SustainedScenario[] = [sseSustained];

/** The service's GraphQL page beside peer GraphQL servers on the same data (PostgreSQL only; bench/peers/). */
export const peersScenarios: PeersScenario[] = [graphqlPeers];

/** Scenarios the targets name that the service cannot run yet: listed as such in the output, never faked. */
export const pendingScenarios: PendingScenario[] = [];
