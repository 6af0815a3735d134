/**
 * Where a V8 CPU profile's time went: `npx tsx bench/profile-summary.ts FILE.cpuprofile [N]`, for
 * a profile the bench's service wrote (BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR"). Prints
 * the busy time (samples outside `(idle)`), then the N (25) largest shares of it: by package or
 * src/ folder (self time), by function (self), and by function with what it called (inclusive;
 * a function counted once per sample however deep it recurs). Time after an `await` belongs to
 * whatever resumed it, not to the function that awaited. Run the bench with BENCH_PG_CPU, or the
 * service's waits for PostgreSQL on its own CPU are charged to the frames they interrupted.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** A frame's name: function, then the file below node_modules or dist, and line. */
const frameName = ({ functionName, url, lineNumber }: CallFrame) =>
  `${functionName || '(anonymous)'}${url ? ` ${url.replace(/^.*node_modules\//, '').replace(/^.*\/dist\//, '')}:${lineNumber + 1}` : ''}`;

/** The package (scope included), the src/ folder, or the node: module a frame is in; V8's own entries as named. */
export function frameGroup({ functionName, url }: CallFrame): string {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  const own = /\/dist\/(src\/[^/]+)/.exec(url);
  if (own) return own[1]!.replace(/\.js$/, '');
  if (url.startsWith('node:')) return url.split('/').slice(0, 2).join('/');
  return url ? url : functionName || '(native)';
}

export interface Summary {
  busyMs: number;
  byGroup: [string, number][];
  self: [string, number][];
  inclusive: [string, number][];
}

/** Milliseconds per group, function and function-with-callees; `(idle)` is left out of every figure. */
export function summarize(profile: CpuProfile): Summary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const sampled = new Map<number, number>();
  profile.samples.forEach((id, i) => sampled.set(id, (sampled.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const add = (map: Map<string, number>, key: string, us: number) => map.set(key, (map.get(key) ?? 0) + us);
  const groups = new Map<string, number>();
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let busy = 0;
  for (const [id, us] of sampled) {
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === '(idle)') continue;
    busy += us;
    add(groups, frameGroup(frame), us);
    add(self, frameName(frame), us);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const name = frameName(byId.get(at)!.callFrame);
      if (seen.has(name)) continue;
      seen.add(name);
      add(inclusive, name, us);
    }
  }
  inclusive.delete('(root)');
  const sorted = (map: Map<string, number>) => [...map].map(([k, us]) => [k, us / 1000] as [string, number]).sort((a, b) => b[1] - a[1]);
  return { busyMs: busy / 1000, byGroup: sorted(groups), self: sorted(self), inclusive: sorted(inclusive) };
}

// Run as a script, not imported (the tests import summarize).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [file, top = '25'] = process.argv.slice(2);
  if (!file) {
    process.stderr.write('usage: npx tsx bench/profile-summary.ts FILE.cpuprofile [N]\n');
    process.exit(2);
  }
  const summary = summarize(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile);
  const share = (ms: number) => `${((100 * ms) / summary.busyMs).toFixed(1).padStart(5)}%`;
  const section = (title: string, rows: [string, number][]) => [``, title, ...rows.slice(0, Number(top)).map(([name, ms]) => `${share(ms)}  ${name}`)];
  const lines = [
    `busy ${summary.busyMs.toFixed(0)} ms (samples outside (idle))`,
    ...section('self time by package or src/ folder', summary.byGroup),
    ...section('self time by function', summary.self),
    ...section('inclusive time by function', summary.inclusive),
  ];
  // One write, and quiet when a pager or `head` stops reading early.
  process.stdout.on('error', () => process.exit(0));
  process.stdout.write(`${lines.join('\n')}\n`);
}
