/** CPU time of processes from Linux /proc: the servers a run starts, and the local PostgreSQL. */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const TICKS = Number(spawnSync('getconf', ['CLK_TCK']).stdout?.toString().trim()) || 100;

/**
 * A `/proc/<pid>/stat` line: the command name (comm, between the first `(` and the last `)`,
 * which may itself hold spaces and parentheses), utime + stime in clock ticks (the 14th and
 * 15th fields, man 5 proc) and the start time (the 22nd), which tells a reused pid apart.
 */
export function parseStat(stat: string): { comm: string; ticks: number; start: number } | undefined {
  const open = stat.indexOf('(');
  const close = stat.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const fields = stat.slice(close + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  const start = Number(fields[19]);
  return Number.isFinite(ticks) && Number.isFinite(start) ? { comm: stat.slice(open + 1, close), ticks, start } : undefined;
}

const readStat = (pid: number | string) => {
  try {
    return parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined; // gone, or no /proc
  }
};

/** CPU seconds one process has used so far; undefined where /proc is missing. */
export function processCpuSeconds(pid: number | undefined): number | undefined {
  const stat = pid === undefined ? undefined : readStat(pid);
  return stat ? stat.ticks / TICKS : undefined;
}

/** The pids of every process whose comm is `name`; empty where there is none or no /proc. */
export function pidsOfProcessesNamed(name: string): number[] {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return [];
  }
  return pids.filter((pid) => readStat(pid)?.comm === name).map(Number);
}

/** CPU seconds so far of every process whose comm is `name`, by pid and start time; undefined where there is none or no /proc. */
export function cpuOfProcessesNamed(name: string): Map<string, number> | undefined {
  const seconds = new Map<string, number>();
  for (const pid of pidsOfProcessesNamed(name)) {
    const stat = readStat(pid);
    if (stat) seconds.set(`${pid}/${stat.start}`, stat.ticks / TICKS); // else exited since it was listed
  }
  return seconds.size > 0 ? seconds : undefined;
}

/**
 * CPU seconds the processes used between two readings: a process in both counts what it added,
 * one that started in between counts all of its time. One that exited in between counts
 * nothing: its time before the first reading was not the interval's, and a plain sum of the two
 * readings would subtract it (another server's pool closing idle connections during a round made
 * a round's database CPU look near zero).
 */
export function cpuSecondsBetween(before: ReadonlyMap<string, number>, after: ReadonlyMap<string, number>): number {
  let seconds = 0;
  for (const [id, now] of after) seconds += now - (before.get(id) ?? 0);
  return seconds;
}

/**
 * The local PostgreSQL's processes: the postmaster, its background workers and every backend are
 * all named `postgres` (PostgreSQL retitles them in their command line, not their comm). A
 * round's difference (cpuSecondsBetween) is the database's own CPU, which a run's server figures
 * leave out. Backends that exit within a round take that round's CPU with them; the service's and
 * the floor's pools keep theirs open.
 */
export const postgresCpu = () => cpuOfProcessesNamed('postgres');
