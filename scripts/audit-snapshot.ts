// Builds audit/advisories.json, the advisory snapshot `npm run audit` falls back to, from a
// checkout of the GitHub Advisory Database (https://github.com/github/advisory-database, OSV JSON,
// CC-BY-4.0):
//
//   git clone --depth 1 https://github.com/github/advisory-database /tmp/advisory-database
//   npx tsx scripts/audit-snapshot.ts --db /tmp/advisory-database
//
// Keeps the reviewed advisories (advisories/github-reviewed/**) of ecosystem npm that name a
// package found anywhere in package-lock.json (production and dev, so the snapshot stays useful
// as dependencies move), minus withdrawn ones; per advisory: id, aliases, summary, severity
// (database_specific.severity), the npm affected ranges of those packages, published/modified and
// the file it came from.
//
// Options: --out FILE (default audit/advisories.json), --lockfile FILE, --commit SHA (default:
// `git rev-parse HEAD` in --db), --commits FILE (JSON {repoPath: commit} when the files were
// gathered one by one rather than from one checkout), --partial NOTE (mark the snapshot as not
// covering the whole database, with the reason).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { readLockfile, type Severity, type Snapshot, type SnapshotAdvisory, type SnapshotAffected } from './audit-lib.js';

export const SOURCE = 'GitHub Advisory Database, https://github.com/github/advisory-database (advisories/github-reviewed, OSV JSON)';
export const ATTRIBUTION =
  'Contains data from the GitHub Advisory Database (https://github.com/github/advisory-database), ' +
  'licensed under the Creative Commons Attribution 4.0 International License (CC-BY-4.0, ' +
  'https://creativecommons.org/licenses/by/4.0/). Changed: reduced to the reviewed npm advisories of ' +
  'packages in package-lock.json and to the fields listed in scripts/audit-snapshot.ts.';

interface OsvFile {
  id: string;
  aliases?: string[];
  summary?: string;
  details?: string;
  published?: string;
  modified?: string;
  withdrawn?: string;
  affected?: SnapshotAffected[];
  database_specific?: { severity?: string };
}

function* jsonFiles(dir: string): Generator<string> {
  for (const ent of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, ent.name);
    if (ent.isDirectory()) yield* jsonFiles(p);
    else if (ent.isFile() && ent.name.endsWith('.json')) yield p;
  }
}

const SEVERITIES = new Set(['LOW', 'MODERATE', 'HIGH', 'CRITICAL']);

export function buildSnapshot(opts: {
  db: string;
  packageNames: Set<string>;
  commit: string | null;
  commits?: Record<string, string>;
  partial?: string;
  now?: Date;
}): Snapshot {
  const reviewed = join(opts.db, 'advisories', 'github-reviewed');
  if (!existsSync(reviewed)) throw new Error(`${reviewed} not found: --db must be an advisory-database checkout`);
  const advisories: SnapshotAdvisory[] = [];
  for (const file of jsonFiles(reviewed)) {
    const osv = JSON.parse(readFileSync(file, 'utf8')) as OsvFile;
    if (osv.withdrawn) continue;
    const affected = (osv.affected ?? [])
      .filter((a) => a.package?.ecosystem === 'npm' && opts.packageNames.has(a.package.name))
      .map((a) => ({
        package: { ecosystem: 'npm', name: a.package.name },
        ...(a.ranges ? { ranges: a.ranges.map((r) => ({ type: r.type, events: r.events })) } : {}),
        ...(a.versions ? { versions: a.versions } : {}),
      }));
    if (!affected.length) continue;
    const sev = osv.database_specific?.severity?.toUpperCase() ?? 'UNKNOWN';
    const path = relative(opts.db, file).split('\\').join('/');
    advisories.push({
      id: osv.id,
      aliases: osv.aliases ?? [],
      summary: osv.summary ?? osv.details?.split('\n')[0]?.slice(0, 200) ?? '',
      severity: (SEVERITIES.has(sev) ? sev : 'UNKNOWN') as Severity,
      published: osv.published ?? null,
      modified: osv.modified ?? null,
      affected,
      source: { path, commit: opts.commits?.[path] ?? opts.commit },
    });
  }
  advisories.sort((a, b) => a.id.localeCompare(b.id));
  return {
    source: SOURCE,
    license: 'CC-BY-4.0',
    attribution: ATTRIBUTION,
    commit: opts.commit,
    generatedAt: (opts.now ?? new Date()).toISOString(),
    coverage: opts.partial
      ? { complete: false, note: opts.partial }
      : { complete: true, note: 'every reviewed advisory of the checkout was read' },
    lockfilePackages: opts.packageNames.size,
    advisories,
  };
}

function main(): void {
  const root = resolve(import.meta.dirname, '..');
  const { values } = parseArgs({
    options: {
      db: { type: 'string' },
      out: { type: 'string', default: resolve(root, 'audit/advisories.json') },
      lockfile: { type: 'string', default: resolve(root, 'package-lock.json') },
      commit: { type: 'string' },
      commits: { type: 'string' },
      partial: { type: 'string' },
    },
  });
  if (!values.db) throw new Error('--db <advisory-database checkout> is required');
  let commit = values.commit ?? null;
  if (!commit && existsSync(join(values.db, '.git'))) {
    commit = execFileSync('git', ['-C', values.db, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
  }
  const names = new Set(readLockfile(values.lockfile, { prodOnly: false }).map((p) => p.name));
  const snapshot = buildSnapshot({
    db: values.db,
    packageNames: names,
    commit,
    commits: values.commits ? (JSON.parse(readFileSync(values.commits, 'utf8')) as Record<string, string>) : undefined,
    partial: values.partial,
  });
  mkdirSync(dirname(values.out), { recursive: true });
  writeFileSync(values.out, JSON.stringify(snapshot, null, 2) + '\n');
  const bytes = readFileSync(values.out).length;
  console.log(
    `${values.out}: ${snapshot.advisories.length} advisories for ${names.size} lockfile package names, ` +
      `commit ${commit ?? 'per file'}, ${bytes} bytes${snapshot.coverage.complete ? '' : ' (partial)'}`,
  );
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) main();
