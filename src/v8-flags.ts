import { setFlagsFromString } from 'node:v8';

/**
 * The server runs without V8's allocation-site pretenuring. Under steady load V8 decided to
 * allocate some of a request's short-lived objects straight in old space, which then filled with
 * garbage: a full mark-compact every 2-5 s at 500 req/s, whose incremental steps and pause (up
 * to 16 ms on the one core the process had) set the page's p99, 15-50 ms against the floor's ~6.
 * Without pretenuring no mark-compact ran in 20 s, p99 was 5-10 ms, and throughput and CPU
 * a request were unchanged (docs/BENCHMARKS.md, session 24). Imported first by main.ts, before
 * anything allocates much; `--allocation-site-pretenuring` on the command line keeps V8's default.
 */
if (!process.execArgv.some((arg) => arg.replace(/_/g, '-').includes('allocation-site-pretenuring'))) {
  setFlagsFromString('--no-allocation-site-pretenuring');
}
