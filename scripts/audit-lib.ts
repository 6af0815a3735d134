// The pieces of `npm run audit` (scripts/audit.ts) and of the snapshot generator
// (scripts/audit-snapshot.ts): reading the lockfile, matching installed versions against OSV
// ranges from the GitHub Advisory Database, and reading `npm audit --json`.
import { readFileSync } from 'node:fs';
import semver from 'semver';

export type Severity = 'LOW' | 'MODERATE' | 'HIGH' | 'CRITICAL' | 'UNKNOWN';
export const FAILING: ReadonlySet<Severity> = new Set(['HIGH', 'CRITICAL']);

/** One OSV range (`affected[].ranges[]`): events in the order the advisory gives them. */
export interface OsvRange {
  type: string;
  events: Array<{ introduced?: string; fixed?: string; last_affected?: string; limit?: string }>;
}

export interface SnapshotAffected {
  package: { ecosystem: string; name: string };
  ranges?: OsvRange[];
  versions?: string[];
}

export interface SnapshotAdvisory {
  id: string;
  aliases: string[];
  summary: string;
  severity: Severity;
  published: string | null;
  modified: string | null;
  affected: SnapshotAffected[];
  source: { path: string; commit: string | null };
}

export interface Snapshot {
  source: string;
  license: string;
  attribution: string;
  commit: string | null;
  generatedAt: string;
  coverage: { complete: boolean; note: string };
  lockfilePackages: number;
  advisories: SnapshotAdvisory[];
}

export interface InstalledPackage {
  name: string;
  version: string;
  /** The lockfile key, e.g. `node_modules/a/node_modules/b`. */
  path: string;
  dev: boolean;
}

export interface Finding {
  id: string;
  aliases: string[];
  severity: Severity;
  summary: string;
  name: string;
  version: string;
  path: string;
  /** The first fixed version of the range that matched, when the advisory gives one. */
  fixedIn: string | null;
}

export function loadSnapshot(file: string): Snapshot {
  const snapshot = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  if (!Array.isArray(snapshot.advisories)) throw new Error(`${file}: no "advisories" array`);
  return snapshot;
}

/**
 * Every installed package of an npm v2/v3 lockfile (`packages` section). With `prodOnly`, the ones
 * `npm ci --omit=dev` installs: entries marked `dev: true` are left out; `devOptional` ones stay
 * (they are optional dependencies of the production tree as well).
 */
export function readLockfile(file: string, opts: { prodOnly: boolean }): InstalledPackage[] {
  const lock = JSON.parse(readFileSync(file, 'utf8')) as {
    lockfileVersion?: number;
    packages?: Record<string, { name?: string; version?: string; dev?: boolean; link?: boolean }>;
  };
  if (!lock.packages) {
    throw new Error(`${file}: no "packages" section (lockfileVersion ${lock.lockfileVersion}; need 2 or 3)`);
  }
  const out: InstalledPackage[] = [];
  for (const [key, entry] of Object.entries(lock.packages)) {
    if (key === '' || entry.link || !entry.version) continue;
    const at = key.lastIndexOf('node_modules/');
    if (at < 0) continue; // a workspace folder, not an installed package
    const name = entry.name ?? key.slice(at + 'node_modules/'.length);
    const dev = entry.dev === true;
    if (opts.prodOnly && dev) continue;
    out.push({ name, version: entry.version, path: key, dev });
  }
  return out;
}

function cmp(a: string, b: string): number | null {
  const pa = semver.parse(a, { loose: true });
  const pb = semver.parse(b, { loose: true });
  if (!pa || !pb) return null;
  return semver.compare(pa, pb);
}

/**
 * Whether `version` lies in one OSV range: `introduced` opens an interval ("0" = from the first
 * version), `fixed` closes it (exclusive), `last_affected` closes it (inclusive); an interval left
 * open has no fix. Returns the fix of the matching interval (or null), or false when not affected.
 */
export function inRange(version: string, range: OsvRange): { fixedIn: string | null } | false {
  if (range.type !== 'ECOSYSTEM' && range.type !== 'SEMVER') return false;
  if (!semver.parse(version, { loose: true })) return false;
  let start: string | null = null;
  const afterStart = (s: string) => s === '0' || (cmp(version, s) ?? -1) >= 0;
  for (const ev of range.events) {
    if (ev.introduced !== undefined) {
      start = ev.introduced;
    } else if (ev.fixed !== undefined) {
      if (start !== null && afterStart(start) && (cmp(version, ev.fixed) ?? 1) < 0) return { fixedIn: ev.fixed };
      start = null;
    } else if (ev.last_affected !== undefined) {
      if (start !== null && afterStart(start) && (cmp(version, ev.last_affected) ?? 1) <= 0) return { fixedIn: null };
      start = null;
    } else if (ev.limit !== undefined) {
      if (start !== null && afterStart(start) && (cmp(version, ev.limit) ?? 1) < 0) return { fixedIn: null };
      start = null;
    }
  }
  if (start !== null && afterStart(start)) return { fixedIn: null };
  return false;
}

/** Every (advisory, installed package) pair whose version the advisory's npm ranges include. */
export function match(installed: InstalledPackage[], advisories: SnapshotAdvisory[]): Finding[] {
  const byName = new Map<string, Array<{ adv: SnapshotAdvisory; aff: SnapshotAffected }>>();
  for (const adv of advisories) {
    for (const aff of adv.affected) {
      if (aff.package.ecosystem !== 'npm') continue;
      const list = byName.get(aff.package.name) ?? [];
      list.push({ adv, aff });
      byName.set(aff.package.name, list);
    }
  }
  const findings: Finding[] = [];
  for (const pkg of installed) {
    const seen = new Set<string>();
    for (const { adv, aff } of byName.get(pkg.name) ?? []) {
      if (seen.has(adv.id)) continue;
      let hit: { fixedIn: string | null } | false = false;
      if (aff.versions?.includes(pkg.version)) hit = { fixedIn: null };
      for (const r of aff.ranges ?? []) {
        if (hit) break;
        hit = inRange(pkg.version, r);
      }
      if (!hit) continue;
      seen.add(adv.id);
      findings.push({
        id: adv.id,
        aliases: adv.aliases,
        severity: adv.severity,
        summary: adv.summary,
        name: pkg.name,
        version: pkg.version,
        path: pkg.path,
        fixedIn: hit.fixedIn,
      });
    }
  }
  const order: Severity[] = ['CRITICAL', 'HIGH', 'MODERATE', 'LOW', 'UNKNOWN'];
  return findings.sort((a, b) => order.indexOf(a.severity) - order.indexOf(b.severity) || a.name.localeCompare(b.name));
}

export function formatFinding(f: Finding): string {
  const fix = f.fixedIn ? `fixed in ${f.fixedIn}` : 'no fixed version in the advisory range';
  const cve = f.aliases.length ? ` (${f.aliases.join(', ')})` : '';
  return `${f.severity.padEnd(8)} ${f.id}${cve} ${f.name}@${f.version} [${f.path}]: ${f.summary} — ${fix}`;
}

/** What `npm audit --json` printed: a report, or a refusal (endpoint refused, no network, ...). */
export type NpmAuditResult =
  | { kind: 'report'; total: number; findings: Array<{ name: string; severity: string; range: string; titles: string[] }> }
  | { kind: 'unavailable'; reason: string };

export function parseNpmAudit(stdout: string, stderr: string, exitCode: number | null): NpmAuditResult {
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch {
    const line = (stderr || stdout).split('\n').find((l) => l.trim()) ?? `exit code ${exitCode}`;
    return { kind: 'unavailable', reason: `no JSON report: ${line.trim()}` };
  }
  const o = json as {
    auditReportVersion?: number;
    vulnerabilities?: Record<string, { severity: string; range?: string; via?: unknown[] }>;
    metadata?: { vulnerabilities?: Record<string, number> };
    message?: string;
    error?: { summary?: string; code?: string };
    statusCode?: number;
  };
  if (o.auditReportVersion !== undefined && o.vulnerabilities && typeof o.vulnerabilities === 'object') {
    const findings = Object.entries(o.vulnerabilities)
      .filter(([, v]) => v.severity === 'high' || v.severity === 'critical')
      .map(([name, v]) => ({
        name,
        severity: v.severity,
        range: v.range ?? '',
        titles: (v.via ?? []).flatMap((x) =>
          typeof x === 'object' && x && 'title' in x ? [`${String((x as { title: unknown }).title)} ${String((x as { url?: unknown }).url ?? '')}`.trim()] : [],
        ),
      }));
    const total = Object.values(o.metadata?.vulnerabilities ?? {}).reduce((s, n) => s + (typeof n === 'number' ? n : 0), 0);
    return { kind: 'report', total: o.metadata?.vulnerabilities?.total ?? total, findings };
  }
  const reason = o.message ?? o.error?.summary ?? o.error?.code ?? (o.statusCode ? `HTTP ${o.statusCode}` : 'unexpected JSON');
  return { kind: 'unavailable', reason };
}
