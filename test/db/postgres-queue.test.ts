import { execFile } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// postgres.js 3.4.9 keeps its connections in Queues whose shift() leaves a hole at the front and
// only starts over when a shift empties the queue; remove() scans from the start and splices.
// A pool under sustained load never empties its queues, so the holes pile up and every query's
// remove() grows slower with uptime. patches/postgres+3.4.9.patch searches from the first live
// entry and compacts on shift.

const execFileAsync = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const FIXTURE = path.join(import.meta.dirname, 'fixtures/queue-growth.mjs');
const BUILDS = ['src/queue.js', 'cjs/src/queue.js', 'cf/src/queue.js'];

type Queue<T> = { readonly length: number; push(x: T): T; shift(): T | undefined; remove(x: T): T | null };

describe('postgres.js connection queues stay bounded (patches/postgres+3.4.9.patch)', () => {
  it.each(BUILDS)('%s: a queue that never empties holds no growing backlog of holes', async (file) => {
    const { stdout } = await execFileAsync(process.execPath, ['--expose-gc', FIXTURE, path.join(ROOT, 'node_modules/postgres', file)], { cwd: ROOT, timeout: 30_000 });
    const { held, length } = JSON.parse(stdout) as { held: number; length: number };
    expect(length).toBe(10);
    // Unpatched, every shift of a million turns keeps an array slot: many times this bound.
    expect(held).toBeLessThan(1_000_000);
  });

  it('keeps first-in first-out order, length and remove() through its compactions', async () => {
    const { default: createQueue } = (await import(pathToFileURL(path.join(ROOT, 'node_modules/postgres/src/queue.js')).href)) as { default: <T>() => Queue<T> };
    const queue = createQueue<number>();
    for (let i = 0; i < 300; i++) queue.push(i);
    const shifted = Array.from({ length: 150 }, () => queue.shift());
    expect(shifted).toEqual(Array.from({ length: 150 }, (_, i) => i));
    expect(queue.length).toBe(150);
    expect(queue.remove(10)).toBeNull(); // already shifted out
    expect(queue.remove(200)).toBe(200);
    expect(queue.remove(200)).toBeNull();
    queue.push(1000);
    const rest: number[] = [];
    while (queue.length > 0) rest.push(queue.shift()!);
    expect(rest).toEqual([...Array.from({ length: 150 }, (_, i) => 150 + i).filter((n) => n !== 200), 1000]);
    // Emptied by remove(), then used again.
    queue.push(1);
    expect(queue.remove(1)).toBe(1);
    expect(queue.length).toBe(0);
    queue.push(2);
    expect(queue.shift()).toBe(2);
    expect(queue.length).toBe(0);
  });
});
