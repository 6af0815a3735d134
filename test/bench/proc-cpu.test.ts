import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cpuSecondsOfProcessesNamed, parseStat, processCpuSeconds } from '../../bench/proc-cpu.js';

// Fields after the command name, from state (3rd) on: utime is the 14th field, stime the 15th.
const stat = (comm: string, utime: number, stime: number) => `4242 (${comm}) S 1 4242 4242 0 -1 4194560 120 0 0 0 ${utime} ${stime} 0 0 20 0 1 0 123 0`;

describe('bench /proc CPU readings', () => {
  it('reads the command name and utime + stime of a stat line', () => {
    expect(parseStat(stat('postgres', 150, 25))).toEqual({ comm: 'postgres', ticks: 175 });
  });

  it('takes the command name up to the last parenthesis, spaces and parentheses included', () => {
    expect(parseStat(stat('a) (b c', 7, 3))).toEqual({ comm: 'a) (b c', ticks: 10 });
  });

  it('gives nothing for a line without a command name or tick counts', () => {
    expect(parseStat('garbage')).toBeUndefined();
    expect(parseStat('1 (x) S 1 2')).toBeUndefined();
  });

  it.runIf(process.platform === 'linux')('sums the processes of one name: this one among them, none of another name', () => {
    const own = processCpuSeconds(process.pid);
    expect(own).toBeGreaterThan(0);
    expect(processCpuSeconds(undefined)).toBeUndefined();
    const comm = parseStat(readFileSync('/proc/self/stat', 'utf8'))!.comm;
    // Read after this process's own figure: its CPU only grew in between.
    expect(cpuSecondsOfProcessesNamed(comm)).toBeGreaterThanOrEqual(own!);
    expect(cpuSecondsOfProcessesNamed('no such process name')).toBeUndefined();
  });
});
