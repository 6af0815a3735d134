import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { pidsOfProcessesNamed } from '../../bench/proc-cpu.js';
import { affinityOf, pinPostgres } from '../../bench/procs.js';

// Moving the machine's PostgreSQL needs taskset, two CPUs, a local server and the right to move it.
const postgresPids = process.platform === 'linux' ? pidsOfProcessesNamed('postgres') : [];
const canPin =
  postgresPids.length > 0 &&
  os.cpus().length >= 2 &&
  spawnSync('taskset', ['-c', '0', 'true']).status === 0 &&
  (process.getuid?.() === 0 || postgresPids.every((pid) => spawnSync('taskset', ['-cp', affinityOf(pid) ?? '0', String(pid)]).status === 0));

describe('BENCH_PG_CPU: the local PostgreSQL moved for a profiling run', () => {
  it('does nothing without a CPU', () => {
    const restore = pinPostgres(undefined);
    expect(restore).toBeTypeOf('function');
    expect(pinPostgres('')).toBeTypeOf('function');
  });

  it.runIf(process.platform === 'linux')('reads a CPU list as taskset shows it', () => {
    expect(affinityOf(process.pid)).toMatch(/^[\d,-]+$/);
    expect(affinityOf(2 ** 22 + 1)).toBeUndefined(); // no such pid
  });

  it.runIf(canPin)('moves every postgres process onto the CPU and puts each back on its own list', () => {
    const before = new Map(pidsOfProcessesNamed('postgres').map((pid) => [pid, affinityOf(pid)]));
    const cpu = String(os.cpus().length - 1);
    const restore = pinPostgres(cpu);
    try {
      for (const pid of before.keys()) {
        const now = affinityOf(pid);
        if (now !== undefined) expect(now, `postgres ${pid}`).toBe(cpu);
      }
    } finally {
      restore();
    }
    for (const [pid, list] of before) {
      const now = affinityOf(pid);
      if (now !== undefined) expect(now, `postgres ${pid}`).toBe(list);
    }
  });
});
