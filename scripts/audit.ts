// `npm run audit`: fails (exit 1) on any high or critical advisory affecting the production
// dependency tree.
//
// 1. Tries `npm audit --omit=dev --json`. A real report decides: high/critical findings fail.
// 2. When the registry refuses the audit endpoint (this workplace's proxy answers 405 to the
//    bulk-advisory POST) or there is no network, falls back to an offline check: every package of
//    package-lock.json that `npm ci --omit=dev` installs is matched against the committed snapshot
//    of the GitHub Advisory Database (audit/advisories.json, built by scripts/audit-snapshot.ts).
//
// Options: --offline (skip step 1), --lockfile FILE, --snapshot FILE. AUDIT_OFFLINE=1 = --offline.
// Exit codes: 0 clean, 1 high/critical finding, 2 the check itself could not run.
import { spawnSync } from 'node:child_process';
import { relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { FAILING, formatFinding, loadSnapshot, match, parseNpmAudit, readLockfile } from './audit-lib.js';

const root = resolve(import.meta.dirname, '..');
const { values } = parseArgs({
  options: {
    offline: { type: 'boolean', default: process.env.AUDIT_OFFLINE === '1' },
    lockfile: { type: 'string', default: resolve(root, 'package-lock.json') },
    snapshot: { type: 'string', default: resolve(root, 'audit/advisories.json') },
  },
});

function online(): 'pass' | 'fail' | 'unavailable' {
  const r = spawnSync('npm', ['audit', '--omit=dev', '--json'], {
    cwd: root,
    encoding: 'utf8',
    timeout: 120_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  const result = r.error
    ? ({ kind: 'unavailable', reason: r.error.message } as const)
    : parseNpmAudit(r.stdout ?? '', r.stderr ?? '', r.status);
  if (result.kind === 'unavailable') {
    console.log(`npm audit unavailable: ${result.reason}`);
    return 'unavailable';
  }
  console.log('mode: npm audit --omit=dev (registry advisory service)');
  console.log(`vulnerable packages reported: ${result.total}; high or critical: ${result.findings.length}`);
  for (const f of result.findings) {
    console.log(`${f.severity.toUpperCase().padEnd(8)} ${f.name} ${f.range}${f.titles.length ? ': ' + f.titles.join('; ') : ''}`);
  }
  return result.findings.length ? 'fail' : 'pass';
}

function offline(): 'pass' | 'fail' {
  const snapshot = loadSnapshot(values.snapshot);
  const installed = readLockfile(values.lockfile, { prodOnly: true });
  const names = new Set(installed.map((p) => p.name));
  const ageDays = Math.floor((Date.now() - Date.parse(snapshot.generatedAt)) / 86_400_000);
  console.log('mode: offline (lockfile matched against the committed advisory snapshot)');
  const commit = snapshot.commit ?? `per advisory (source.commit of each entry)`;
  console.log(`snapshot: ${relative(process.cwd(), values.snapshot) || values.snapshot}`);
  console.log(`  source: ${snapshot.source}; commit ${commit}`);
  console.log(`  generated: ${snapshot.generatedAt} (${ageDays} days ago); ${snapshot.advisories.length} advisories`);
  if (!snapshot.coverage.complete) console.log(`  WARNING: partial snapshot: ${snapshot.coverage.note}`);
  if (ageDays > 30) console.log('  WARNING: snapshot older than 30 days; refresh it (docs/development.md, "Dependency audit")');
  console.log(`checked: ${installed.length} production packages (${names.size} names) from ${relative(process.cwd(), values.lockfile) || values.lockfile}`);
  const findings = match(installed, snapshot.advisories);
  const failing = findings.filter((f) => FAILING.has(f.severity));
  const other = findings.filter((f) => !FAILING.has(f.severity));
  console.log(`findings: ${failing.length} high or critical, ${other.length} moderate, low or unrated`);
  for (const f of failing) console.log(`  ${formatFinding(f)}`);
  for (const f of other) console.log(`  (not failing) ${formatFinding(f)}`);
  return failing.length ? 'fail' : 'pass';
}

try {
  let outcome = values.offline ? 'unavailable' : online();
  if (outcome === 'unavailable') {
    if (values.offline) console.log('npm audit skipped (--offline)');
    outcome = offline();
  }
  console.log(outcome === 'pass' ? 'audit passed: no high or critical advisory' : 'audit FAILED: high or critical advisory in production dependencies');
  process.exit(outcome === 'pass' ? 0 : 1);
} catch (err) {
  console.error(`audit could not run: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(2);
}
