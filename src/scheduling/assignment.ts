// Which free agent a booking without assignedAgentId goes to: a pure ordering of the agents
// free for the slot, first choice first (the next is tried when a concurrent booking takes one).

export const assignmentStrategies = ['least_busy', 'round_robin'] as const;
export type AssignmentStrategy = (typeof assignmentStrategies)[number];

export interface AssignmentCandidate {
  agentId: string;
  /** 0 (lowest) to 4 (highest): round_robin only considers a lower group when every higher one is busy. */
  priority: number;
  /** 1 to 1000: round_robin shares calls in proportion to weights within a priority group. */
  weight: number;
  /** round_robin: the agent's calls booked over the counting period (not cancelled). */
  callsSoFar: number;
  /** least_busy: the agent's calls within 12 hours either side of the slot. */
  callsNearby: number;
}

// Plain code-unit order, not localeCompare: the order must not depend on the server's locale.
const byId = (a: AssignmentCandidate, b: AssignmentCandidate) => (a.agentId < b.agentId ? -1 : a.agentId > b.agentId ? 1 : 0);

/**
 * least_busy: the fewest calls near the slot first, then agentId.
 * round_robin (weighted, with priorities): the highest priority first; within a priority, the
 * smallest callsSoFar / weight first, so over time each agent gets calls in proportion to its
 * weight; ties go to the larger weight, then agentId. Compared by cross-multiplying, so no
 * rounding decides an order.
 */
export function assignmentOrder({ strategy, candidates }: { strategy: AssignmentStrategy; candidates: AssignmentCandidate[] }): string[] {
  const sorted = [...candidates];
  if (strategy === 'least_busy') sorted.sort((a, b) => a.callsNearby - b.callsNearby || byId(a, b));
  else sorted.sort((a, b) => b.priority - a.priority || a.callsSoFar * b.weight - b.callsSoFar * a.weight || b.weight - a.weight || byId(a, b));
  return sorted.map((c) => c.agentId);
}
