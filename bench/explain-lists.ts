/**
 * The plans of the two list reads that grow with the data (the messages search by a phone
 * number, the campaigns search), as the floor runs them, on seeded PostgreSQL bench datasets:
 * `npx tsx bench/explain-lists.ts [messages ...]` (default 1000000 10000000) after `npm run bench`
 * seeded those sizes. The session settings are the service's (src/db/client.ts).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import postgres from 'postgres';
import { campaignsSearch } from './scenarios/campaigns.js';
import { messagesSearch } from './scenarios/messages.js';
import { DATA } from './dataset.js';

const DAY = 86_400_000;
const sizes = process.argv.length > 2 ? process.argv.slice(2) : ['1000000', '10000000'];
for (const size of sizes) {
  const dataset = JSON.parse(readFileSync(path.join(DATA, `postgres-${size}.json`), 'utf8')) as {
    databaseUrl: string;
    appId: string;
    seededAt: string;
    probe: { searchPhone: string };
  };
  const sql = postgres(dataset.databaseUrl, { max: 1, onnotice: () => {}, connection: { jit: 'off', plan_cache_mode: 'force_custom_plan' } });
  const reads: { name: string; scenario: typeof messagesSearch; query: Record<string, string>; body: unknown }[] = [
    { name: 'messages_search', scenario: messagesSearch, query: { app: dataset.appId, limit: '50', search: dataset.probe.searchPhone }, body: undefined },
    {
      name: 'campaigns_search',
      scenario: campaignsSearch,
      query: { app: dataset.appId },
      body: { limit: 20, filter: { status: ['active', 'paused'], name: 'promo', tags: ['vip'], startDate: new Date(Date.parse(dataset.seededAt) - 90 * DAY).toISOString(), endDate: dataset.seededAt } },
    },
  ];
  for (const { name, scenario, query, body } of reads) {
    const floor = scenario.floor!;
    const params = floor.params(new URLSearchParams(query), body as never);
    // Once to warm the cache, as a bench round is; then the plan of a warm read.
    await sql.unsafe(floor.sql, params as never[]);
    const rows = await sql.unsafe(`explain (analyze, buffers, costs off) ${floor.sql}`, params as never[]);
    process.stdout.write(`== ${name} (${Number(size).toLocaleString('en')} messages)\n${rows.map((r) => r['QUERY PLAN']).join('\n')}\n\n`);
  }
  await sql.end();
}
