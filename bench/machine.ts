/** The machine line of the table: CPU, cores, memory, Node, package and database versions. */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { ROOT } from './dataset.js';
import { serverNode } from './procs.js';

/** The version of a package of the service's node_modules, '?' where it is missing. */
export const packageVersion = (name: string) => {
  try {
    return (JSON.parse(readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return '?';
  }
};

export const PACKAGES = ['graphql', 'graphql-yoga', 'hono', '@hono/node-server', '@pothos/core', 'drizzle-orm', 'postgres', '@electric-sql/pglite', 'graphql-jit', 'autocannon'];

/**
 * "v24.21.0 (/path/to/node)": the version and binary the service and the floor run under, and
 * the harness's own when BENCH_NODE chose another (the load generators and in-process
 * measurements run there).
 */
function nodeLine(): string {
  const server = serverNode();
  if (server === process.execPath) return `${process.version} (${process.execPath})`;
  const version = spawnSync(server, ['--version'], { encoding: 'utf8' }).stdout.trim();
  return `${version} (${server}) for the service and the floor; load generators and in-process measurements on ${process.version} (${process.execPath})`;
}

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
    node: nodeLine(),
    postgres: postgresVersion,
    packages: Object.fromEntries(PACKAGES.map((p) => [p, packageVersion(p)]).filter(([, v]) => v !== '?')),
  };
}
