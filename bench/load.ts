/**
 * The load generator: one autocannon run (options as JSON in argv[2], or on stdin when it is `-`);
 * prints a summary as JSON.
 * `rotate` (a list of {method, path, headers, body}) sends them in turn, one per request across
 * all connections, e.g. PATCHes rotating over many calls.
 */
import autocannon from 'autocannon';

type Rotated = { method: string; path: string; headers?: Record<string, string>; body?: string };
const readStdin = async () => {
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  return text;
};
const raw = process.argv[2] === '-' ? await readStdin() : (process.argv[2] ?? '{}');
const { rotate, ...options } = JSON.parse(raw) as autocannon.Options & { rotate?: Rotated[] };
let next = 0;
const requests = rotate?.length
  ? [{ setupRequest: (req: Record<string, unknown>) => ({ ...req, ...rotate[next++ % rotate.length] }) }]
  : undefined;
const result = await autocannon({ ...options, ...(requests ? { requests } : {}), pipelining: 1 });
const errors = result.errors + result.timeouts + result.non2xx;
process.stdout.write(
  JSON.stringify({ rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors, requests: result.requests.total }),
);
