// The attacker of token-flood.test.ts, in a process of its own like a real one: posts `total`
// token requests, `parallel` at a time and at most `perSecond` a second, each from
// `localAddress` with a unique client id of 64 KB to ~960 KB, and prints the statuses as JSON.
// Paced, because on a shared two-core host an unpaced loop measures the attacker's own CPU
// against the server's. Plain JavaScript: run with node directly.
import { request } from 'node:http';

const [url, total, parallel, perSecond, localAddress] = [new URL(process.argv[2]), Number(process.argv[3]), Number(process.argv[4]), Number(process.argv[5]), process.argv[6]];
const filler = Buffer.alloc(15 * 64 * 1024, 'x');
const tail = Buffer.from('","client_secret":"s"}');

function post(i) {
  const parts = [Buffer.from(`{"grant_type":"client_credentials","client_id":"c${i}-${Date.now()}-`), filler.subarray(0, 64 * 1024 * (1 + ((i * 7919) % 15))), tail];
  const length = parts.reduce((sum, part) => sum + part.length, 0);
  return new Promise((resolve) => {
    const req = request(
      { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', localAddress, agent: false, headers: { 'content-type': 'application/json', 'content-length': length } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode));
      },
    );
    // A reset or a write to a closed socket: no answer (0), which the test counts as a failure.
    req.on('error', () => resolve(0));
    req.write(parts[0]);
    req.write(parts[1]);
    req.end(parts[2]);
  });
}

const statuses = [];
const started = performance.now();
let next = 0;
await Promise.all(
  Array.from({ length: parallel }, async () => {
    while (next < total) {
      const i = next++;
      const due = started + (i * 1000) / perSecond - performance.now();
      if (due > 0) await new Promise((resolve) => setTimeout(resolve, due));
      statuses.push(await post(i));
    }
  }),
);
process.stdout.write(JSON.stringify(statuses));
