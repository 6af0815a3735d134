import { writeFileSync } from 'node:fs';
import { PgDialect } from 'drizzle-orm/pg-core';
import { DateTime } from 'luxon';
import { dailyMetricsSql } from '../src/analytics/metrics.service.js';
const [app, seededAt, out] = process.argv.slice(2);
const end = DateTime.fromISO(seededAt!, { zone: 'America/New_York' }).startOf('day');
const start = end.minus({ days: 90 });
writeFileSync(out!, JSON.stringify(new PgDialect().sqlToQuery(dailyMetricsSql(app!, start.toJSDate(), end.toJSDate(), 'America/New_York'))));
