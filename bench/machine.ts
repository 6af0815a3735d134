/** The machine line of the table: CPU, cores, memory, Node, package and database versions. */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { ROOT } from './dataset.js';

const version = (name: string) => {
  try {
    return (JSON.parse(readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return '?';
  }
};

export const PACKAGES = ['graphql', 'graphql-yoga', 'hono', '@hono/node-server', '@pothos/core', 'drizzle-orm', 'postgres', '@electric-sql/pglite', 'graphql-jit', 'autocannon'];

export async function machine(pgUrl: string | undefined) {
  const cpu = os.cpus()[0]?.model.trim() ?? 'unknown CPU';
  let postgresVersion: string | undefined;
  if (pgUrl) {
    const sql = postgres(pgUrl, { max: 1, onnotice: () => {} });
    try {
      postgresVersion = ((await sql`show server_version`)[0] as { server_version: string }).server_version;
    } catch {
      postgresVersion = undefined;
    } finally {
      await sql.end({ timeout: 1 });
    }
  }
  return {
    cpu,
    cores: os.cpus().length,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    postgres: postgresVersion,
    packages: Object.fromEntries(PACKAGES.map((p) => [p, version(p)]).filter(([, v]) => v !== '?')),
  };
}
