/**
 * Peer: PostGraphile 5 (Amber preset, Node 22+) over the bench database, serving its generated
 * `allMessages` connection at POST /graphql through grafserv's node:http adaptor. No JWT, roles or
 * pgSettings: every request runs as the connecting user. Started by bench/run.ts with PEER_PORT
 * and PEER_DATABASE_URL.
 */
import { createServer } from 'node:http';
import { postgraphile } from 'postgraphile';
import { makePgService } from 'postgraphile/adaptors/pg';
import { grafserv } from 'postgraphile/grafserv/node';
import { PostGraphileAmberPreset } from 'postgraphile/presets/amber';

const connectionString = process.env.PEER_DATABASE_URL;
if (!connectionString) throw new Error('PEER_DATABASE_URL is required');

const pgl = postgraphile({
  extends: [PostGraphileAmberPreset],
  pgServices: [
    makePgService({
      connectionString,
      schemas: ['public'],
      // The service's and the floor's pool size.
      poolConfig: { max: Number(process.env.PEER_POOL_MAX ?? 10) },
    }),
  ],
  grafserv: { graphqlPath: '/graphql', graphiql: false, watch: false },
  grafast: { explain: false },
});

// Introspection and schema building happen before the port opens, so the first request is served.
await pgl.getSchema();
const serv = pgl.createServ(grafserv);
const handler = serv.createHandler();
const server = createServer((req, res) => {
  if (req.url === '/healthz') res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  else handler(req, res);
});
server.listen(Number(process.env.PEER_PORT ?? 0), '127.0.0.1');

const stop = () => server.close(() => void Promise.resolve(pgl.release()).then(() => process.exit(0)));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
