import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cpuOfProcessesNamed, cpuSecondsBetween, parseStat, processCpuSeconds } from '../../bench/proc-cpu.js';

// Fields after the command name, from state (3rd) on: utime is the 14th field, stime the 15th.
const stat = (comm: string, utime: number, stime: number) => `4242 (${comm}) S 1 4242 4242 0 -1 4194560 120 0 0 0 ${utime} ${stime} 0 0 20 0 1 0 123 0`;

describe('bench /proc CPU readings', () => {
  it('reads the command name and utime + stime of a stat line', () => {
    expect(parseStat(stat('postgres', 150, 25))).toEqual({ comm: 'postgres', ticks: 175, start: 123 });
  });

  it('takes the command name up to the last parenthesis, spaces and parentheses included', () => {
    expect(parseStat(stat('a) (b c', 7, 3))).toEqual({ comm: 'a) (b c', ticks: 10, start: 123 });
  });

  it('gives nothing for a line without a command name or tick counts', () => {
    expect(parseStat('garbage')).toBeUndefined();
    expect(parseStat('1 (x) S 1 2')).toBeUndefined();
  });

  it.runIf(process.platform === 'linux')('reads the processes of one name: this one among them, none of another name', () => {
    const own = processCpuSeconds(process.pid);
    expect(own).toBeGreaterThan(0);
    expect(processCpuSeconds(undefined)).toBeUndefined();
    const self = parseStat(readFileSync('/proc/self/stat', 'utf8'))!;
    // Read after this process's own figure: its CPU only grew in between.
    expect(cpuOfProcessesNamed(self.comm)!.get(`${process.pid}/${self.start}`)).toBeGreaterThanOrEqual(own!);
    expect(cpuOfProcessesNamed('no such process name')).toBeUndefined();
  });

  it('counts between two readings what each process added, all of a new one and nothing of one that exited', () => {
    const before = new Map([
      ['10/1', 5],
      ['11/1', 40], // exits before the second reading: its 40 s are not the interval's
      ['12/1', 2], // pid 12 reused by a process started later
    ]);
    const after = new Map([
      ['10/1', 7.5],
      ['12/9', 0.25],
      ['13/9', 1],
    ]);
    expect(cpuSecondsBetween(before, after)).toBe(2.5 + 0.25 + 1);
    expect(cpuSecondsBetween(after, after)).toBe(0);
  });
});
