/**
 * An open-loop load generator: requests start on a fixed schedule (`rate` a second, evenly
 * spaced) over at most `connections` keep-alive connections, whatever the server's speed.
 * Latency runs from a request's scheduled start, so time spent waiting for a free connection
 * counts (no coordinated omission). autocannon's overallRate releases each second's quota as
 * fast as it can at the start of the second, which measures a burst at saturation instead.
 * Options as JSON on stdin ({ url, method, headers, body, connections, duration, rate });
 * prints { rps, p50, p99, errors, requests } as JSON, like bench/load.ts.
 */
import http from 'node:http';

interface Options {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  duration: number;
  rate: number;
}

let text = '';
for await (const chunk of process.stdin) text += String(chunk);
const options = JSON.parse(text) as Options;
const url = new URL(options.url);
const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections });
const interval = 1000 / options.rate;
const total = Math.round(options.rate * options.duration);
const latencies: number[] = [];
let errors = 0;
let finished = 0;

function send(scheduled: number): Promise<void> {
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      if (ok) latencies.push(performance.now() - scheduled);
      else errors++;
      finished++;
      resolve();
    };
    const req = http.request(
      { agent, host: url.hostname, port: url.port, path: url.pathname + url.search, method: options.method ?? 'GET', headers: options.headers },
      (res) => {
        res.on('data', () => {});
        res.on('end', () => done(res.statusCode !== undefined && res.statusCode >= 200 && res.statusCode < 300));
        res.on('error', () => done(false));
      },
    );
    req.setTimeout(10_000, () => req.destroy(new Error('timeout')));
    req.on('error', () => done(false));
    req.end(options.body);
  });
}

const started = performance.now();
const inflight: Promise<void>[] = [];
let next = 0;
await new Promise<void>((resolve) => {
  const tick = () => {
    const now = performance.now();
    // Every request whose time has come starts now, each timed from its own scheduled moment.
    while (next < total && started + next * interval <= now) inflight.push(send(started + next++ * interval));
    if (next >= total) resolve();
    else setTimeout(tick, Math.max(0, started + next * interval - performance.now()));
  };
  tick();
});
await Promise.all(inflight);
const elapsed = (performance.now() - started) / 1000;
agent.destroy();

latencies.sort((a, b) => a - b);
const at = (q: number) => (latencies.length ? Math.round(latencies[Math.min(latencies.length - 1, Math.ceil(q * latencies.length) - 1)]! * 10) / 10 : 0);
process.stdout.write(JSON.stringify({ rps: finished / elapsed, p50: at(0.5), p99: at(0.99), errors, requests: latencies.length }));
