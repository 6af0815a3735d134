/** The load generator: one autocannon run (options as JSON in argv[2]); prints a summary as JSON. */
import autocannon from 'autocannon';

const options = JSON.parse(process.argv[2] ?? '{}') as autocannon.Options;
const result = await autocannon({ ...options, pipelining: 1 });
const errors = result.errors + result.timeouts + result.non2xx;
process.stdout.write(
  JSON.stringify({ rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors, requests: result.requests.total }),
);
