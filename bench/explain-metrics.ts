/**
 * The plans of the two metric reads on a seeded PostgreSQL bench dataset, as the bench runs them
 * (the same windows: the last 30 days for the summary, and the 30 before them; 90 New York days
 * for the daily read):
 * `npx tsx bench/explain-metrics.ts [messages]` after `npm run bench` seeded that size.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import postgres from 'postgres';
import { dailyMetricsSql, summaryMetricsSql } from '../src/analytics/metrics.service.js';
import { DATA } from './dataset.js';
import { days90, last30 } from './scenarios/metrics.js';

const messages = Number(process.argv[2] ?? 1_000_000);
const dataset = JSON.parse(readFileSync(path.join(DATA, `postgres-${messages}.json`), 'utf8')) as { databaseUrl: string; appId: string; seededAt: string };
const sql = postgres(dataset.databaseUrl, { max: 1, onnotice: () => {} });
const dialect = new PgDialect();

async function explain(title: string, query: SQL, settings: string[] = []): Promise<void> {
  const { sql: text, params } = dialect.sqlToQuery(query);
  await sql.begin(async (tx) => {
    for (const setting of settings) await tx.unsafe(setting);
    // Once to warm the cache, as a bench round is; then the plan of a warm read.
    await tx.unsafe(text, params as never[]);
    const rows = await tx.unsafe(`explain (analyze, buffers, costs off) ${text}`, params as never[]);
    process.stdout.write(`== ${title} (${messages.toLocaleString('en')} messages)\n${rows.map((r) => r['QUERY PLAN']).join('\n')}\n\n`);
  });
}

const month = last30(dataset.seededAt);
await explain('metrics_summary, the last 30 days', summaryMetricsSql(dataset.appId, new Date(month.start), new Date(month.end)));
// A month in the past: contacts seen before it and after it must be looked for inside it.
await explain('metrics_summary, the 30 days before those', summaryMetricsSql(dataset.appId, new Date(Date.parse(month.start) - 30 * 86_400_000), new Date(month.start)));
const quarter = days90(dataset.seededAt);
await explain('metrics_daily_90d', dailyMetricsSql(dataset.appId, new Date(quarter.start), new Date(quarter.end), 'America/New_York'), ['set local enable_mergejoin = off']);
await sql.end();
