import { setFlagsFromString } from 'node:v8';

/**
 * The server runs without V8's allocation-site pretenuring: with it, V8 puts some of a request's
 * short-lived objects straight in old space, and the full collections that garbage forces stall
 * requests (docs/performance.md). Imported first by main.ts, before anything allocates much;
 * `--allocation-site-pretenuring` on the command line keeps V8's default.
 */
if (!process.execArgv.some((arg) => arg.replace(/_/g, '-').includes('allocation-site-pretenuring'))) {
  setFlagsFromString('--no-allocation-site-pretenuring');
}
