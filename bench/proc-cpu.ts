/** CPU time of processes from Linux /proc: the servers a run starts, and the local PostgreSQL. */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const TICKS = Number(spawnSync('getconf', ['CLK_TCK']).stdout?.toString().trim()) || 100;

/**
 * A `/proc/<pid>/stat` line: the command name (comm, between the first `(` and the last `)`,
 * which may itself hold spaces and parentheses) and utime + stime in clock ticks (the 14th and
 * 15th fields, man 5 proc).
 */
export function parseStat(stat: string): { comm: string; ticks: number } | undefined {
  const open = stat.indexOf('(');
  const close = stat.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const fields = stat.slice(close + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Number.isFinite(ticks) ? { comm: stat.slice(open + 1, close), ticks } : undefined;
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

/** CPU seconds used so far by every process whose comm is `name`; undefined where there is none or no /proc. */
export function cpuSecondsOfProcessesNamed(name: string): number | undefined {
  let ticks = 0;
  let found = false;
  for (const pid of pidsOfProcessesNamed(name)) {
    const stat = readStat(pid);
    if (!stat) continue; // exited since it was listed
    ticks += stat.ticks;
    found = true;
  }
  return found ? ticks / TICKS : undefined;
}

/**
 * The local PostgreSQL's CPU seconds so far: the postmaster, its background workers and every
 * backend are all named `postgres` (PostgreSQL retitles them in their command line, not their
 * comm). A round's difference is the database's own CPU, which a run's server figures leave out.
 * Backends that exit within a round take their CPU with them; the service's and the floor's
 * pools keep theirs open.
 */
export const postgresCpuSeconds = () => cpuSecondsOfProcessesNamed('postgres');
