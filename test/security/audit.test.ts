import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FAILING, inRange, loadSnapshot, match, parseNpmAudit, readLockfile } from '../../scripts/audit-lib.js';
import { buildSnapshot } from '../../scripts/audit-snapshot.js';

// `npm run audit` (scripts/audit.ts), offline fallback. Offline and fast: the committed
// snapshot, the real lockfile and fake ones.
const root = resolve(import.meta.dirname, '../..');
const snapshot = loadSnapshot(join(root, 'audit/advisories.json'));
const dir = mkdtempSync(join(tmpdir(), 'sb-audit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Entry = { version: string; dev?: boolean; name?: string };
function fakeLockfile(file: string, packages: Record<string, Entry>): string {
  const path = join(dir, file);
  writeFileSync(path, JSON.stringify({ name: 'fake', lockfileVersion: 3, packages: { '': { name: 'fake' }, ...packages } }));
  return path;
}

// luxon is a production dependency; 3.2.0 is inside GHSA-3xq5-wjfh-ppjc (HIGH, fixed in 3.2.1).
const vulnerable = fakeLockfile('vulnerable.json', {
  'node_modules/luxon': { version: '3.2.0' },
  'node_modules/minimist': { version: '1.2.5', dev: true }, // CRITICAL, but dev only
  'node_modules/zod': { version: '3.22.2' }, // LOW, last_affected 3.22.2
  'node_modules/hono': { version: '4.13.19' },
  'node_modules/a/node_modules/ansi-regex': { version: '5.0.0' }, // HIGH, nested copy
});

describe('offline matcher', () => {
  it('the snapshot carries its source, license and the advisories the tests rely on', () => {
    expect(snapshot.license).toBe('CC-BY-4.0');
    expect(snapshot.attribution).toContain('github/advisory-database');
    const ids = snapshot.advisories.map((a) => a.id);
    expect(ids).toEqual(expect.arrayContaining(['GHSA-3xq5-wjfh-ppjc', 'GHSA-93q8-gq69-wqmw', 'GHSA-m95q-7qp3-xv42']));
    for (const a of snapshot.advisories) expect(a.source.commit ?? snapshot.commit).toMatch(/^[0-9a-f]{40}$/);
  });

  it('reports a known-vulnerable production version as HIGH and leaves dev-only packages out', () => {
    const findings = match(readLockfile(vulnerable, { prodOnly: true }), snapshot.advisories);
    const failing = findings.filter((f) => FAILING.has(f.severity));
    expect(failing.map((f) => `${f.id} ${f.name}@${f.version} ${f.severity} ${f.fixedIn}`).sort()).toEqual([
      'GHSA-3xq5-wjfh-ppjc luxon@3.2.0 HIGH 3.2.1',
      'GHSA-93q8-gq69-wqmw ansi-regex@5.0.0 HIGH 5.0.1',
    ]);
    expect(findings.find((f) => f.name === 'zod')).toMatchObject({ severity: 'LOW', fixedIn: null });
    expect(findings.some((f) => f.name === 'minimist')).toBe(false);
    const all = match(readLockfile(vulnerable, { prodOnly: false }), snapshot.advisories);
    expect(all.find((f) => f.name === 'minimist')).toMatchObject({ id: 'GHSA-xvch-5gv4-984h', severity: 'CRITICAL' });
  });

  it('range edges: introduced inclusive, fixed exclusive, last_affected inclusive, prereleases', () => {
    const luxon = { type: 'ECOSYSTEM', events: [{ introduced: '3.0.0' }, { fixed: '3.2.1' }] };
    expect(inRange('3.0.0', luxon)).toEqual({ fixedIn: '3.2.1' });
    expect(inRange('3.2.0', luxon)).toEqual({ fixedIn: '3.2.1' });
    expect(inRange('3.2.1', luxon)).toBe(false);
    expect(inRange('2.9.9', luxon)).toBe(false);
    const zod = { type: 'ECOSYSTEM', events: [{ introduced: '0' }, { last_affected: '3.22.2' }] };
    expect(inRange('0.1.0', zod)).toEqual({ fixedIn: null });
    expect(inRange('3.22.3', zod)).toBe(false);
    const yaml = { type: 'ECOSYSTEM', events: [{ introduced: '2.0.0-5' }, { fixed: '2.2.2' }] };
    expect(inRange('2.0.0-4', yaml)).toBe(false);
    expect(inRange('2.0.0-6', yaml)).toEqual({ fixedIn: '2.2.2' });
    expect(inRange('1.0.0', { type: 'ECOSYSTEM', events: [{ introduced: '0.5.0' }] })).toEqual({ fixedIn: null });
    expect(inRange('1.0.0', { type: 'GIT', events: [{ introduced: '0' }] })).toBe(false);
  });

  it('the real lockfile: every production package checked, no high or critical finding', () => {
    const prod = readLockfile(join(root, 'package-lock.json'), { prodOnly: true });
    const all = readLockfile(join(root, 'package-lock.json'), { prodOnly: false });
    expect(prod.length).toBeGreaterThan(100);
    expect(prod.length).toBeLessThan(all.length);
    expect(prod.some((p) => p.name === 'hono')).toBe(true);
    expect(prod.some((p) => p.name === 'vitest')).toBe(false);
    expect(match(prod, snapshot.advisories).filter((f) => FAILING.has(f.severity))).toEqual([]);
  });
});

describe('npm audit output', () => {
  it('the registry refusal (405) is "unavailable", so the offline check runs', () => {
    const refused = JSON.stringify({
      message: '405 Method Not Allowed - POST https://registry.npmjs.org/-/npm/v1/security/advisories/bulk',
      method: 'POST',
      statusCode: 405,
      body: '',
    });
    expect(parseNpmAudit(refused, '', 1)).toEqual({ kind: 'unavailable', reason: expect.stringContaining('405') });
    expect(parseNpmAudit('', 'npm error code ENOTFOUND', 1)).toMatchObject({ kind: 'unavailable' });
  });

  it('a real report fails on high and critical only', () => {
    const report = {
      auditReportVersion: 2,
      vulnerabilities: {
        luxon: { name: 'luxon', severity: 'high', range: '3.0.0 - 3.2.0', via: [{ title: 'Luxon ReDoS', url: 'https://github.com/advisories/GHSA-3xq5-wjfh-ppjc' }] },
        zod: { name: 'zod', severity: 'low', range: '<=3.22.2', via: [{ title: 'Zod DoS' }] },
      },
      metadata: { vulnerabilities: { info: 0, low: 1, moderate: 0, high: 1, critical: 0, total: 2 } },
    };
    const r = parseNpmAudit(JSON.stringify(report), '', 1);
    expect(r).toMatchObject({ kind: 'report', total: 2 });
    expect(r.kind === 'report' && r.findings.map((f) => f.name)).toEqual(['luxon']);
    const clean = { auditReportVersion: 2, vulnerabilities: {}, metadata: { vulnerabilities: { total: 0 } } };
    expect(parseNpmAudit(JSON.stringify(clean), '', 0)).toEqual({ kind: 'report', total: 0, findings: [] });
  });
});

describe('snapshot generator', () => {
  it('keeps reviewed npm advisories of lockfile packages only, with severity and ranges', () => {
    const db = join(dir, 'db');
    const put = (rel: string, doc: object) => {
      mkdirSync(join(db, rel, '..'), { recursive: true });
      writeFileSync(join(db, rel), JSON.stringify(doc));
    };
    const npm = (name: string) => ({ package: { ecosystem: 'npm', name }, ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '2.0.0' }] }] });
    put('advisories/github-reviewed/2026/01/GHSA-aaaa/GHSA-aaaa.json', {
      id: 'GHSA-aaaa', aliases: ['CVE-1'], summary: 'kept', published: '2026-01-01T00:00:00Z', modified: '2026-01-02T00:00:00Z',
      affected: [npm('hono'), npm('not-in-lockfile'), { package: { ecosystem: 'PyPI', name: 'hono' } }],
      database_specific: { severity: 'HIGH' },
    });
    put('advisories/github-reviewed/2026/01/GHSA-bbbb/GHSA-bbbb.json', { id: 'GHSA-bbbb', affected: [npm('left-pad')], database_specific: { severity: 'HIGH' } });
    put('advisories/github-reviewed/2026/01/GHSA-cccc/GHSA-cccc.json', { id: 'GHSA-cccc', withdrawn: '2026-02-01T00:00:00Z', affected: [npm('hono')] });
    put('advisories/github-reviewed/2026/01/GHSA-dddd/GHSA-dddd.json', { id: 'GHSA-dddd', affected: [{ package: { ecosystem: 'Go', name: 'hono' } }] });
    put('advisories/unreviewed/2026/01/GHSA-eeee/GHSA-eeee.json', { id: 'GHSA-eeee', affected: [npm('hono')] });
    const snap = buildSnapshot({ db, packageNames: new Set(['hono', 'luxon']), commit: 'c'.repeat(40), now: new Date('2026-11-23T00:00:00Z') });
    expect(snap).toMatchObject({ commit: 'c'.repeat(40), license: 'CC-BY-4.0', generatedAt: '2026-11-23T00:00:00.000Z', coverage: { complete: true } });
    expect(snap.advisories).toEqual([
      {
        id: 'GHSA-aaaa', aliases: ['CVE-1'], summary: 'kept', severity: 'HIGH',
        published: '2026-01-01T00:00:00Z', modified: '2026-01-02T00:00:00Z',
        affected: [npm('hono')],
        source: { path: 'advisories/github-reviewed/2026/01/GHSA-aaaa/GHSA-aaaa.json', commit: 'c'.repeat(40) },
      },
    ]);
  });
});

describe('npm run audit (offline mode, real process)', () => {
  const run = (lockfile: string) =>
    spawnSync(process.execPath, ['--import', 'tsx', join(root, 'scripts/audit.ts'), '--offline', '--lockfile', lockfile], {
      cwd: root,
      encoding: 'utf8',
      timeout: 60_000,
    });

  it('exits 1 and names the advisory for a vulnerable production lockfile', () => {
    const r = run(vulnerable);
    expect(r.stdout).toContain('mode: offline');
    expect(r.stdout).toContain('GHSA-3xq5-wjfh-ppjc');
    expect(r.stdout).toContain('luxon@3.2.0');
    expect(r.stdout).toMatch(/checked: 4 production packages/);
    expect(r.status).toBe(1);
  });

  it('exits 0 on the real lockfile', () => {
    const r = run(join(root, 'package-lock.json'));
    expect(r.stdout).toContain('findings: 0 high or critical');
    expect(r.status).toBe(0);
  });
});
