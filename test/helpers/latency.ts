// Latency ratios depend on whatever else the machine runs, so `npm test` reports them and checks
// behaviour only; `npm run soak:latency` (ASSERT_LATENCY=1) on a quiet machine holds them too.
export const assertLatency = process.env.ASSERT_LATENCY === '1';
