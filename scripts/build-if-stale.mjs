#!/usr/bin/env node
// Runs before `npm start` and `npm run cli`: compiles src/ into dist/ when dist/ is missing or
// older than a source, and does nothing when it is current. Plain JavaScript with built-in
// modules only: it runs in a production install too, where TypeScript and tsx are pruned.
// Writes to stderr only: the CLI's stdout carries its one JSON object.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const entries = ['dist/src/main.js', 'dist/src/cli/main.js'].map((p) => path.join(root, p));
const sources = [path.join(root, 'src'), path.join(root, 'tsconfig.json'), path.join(root, 'tsconfig.build.json')];

/** The newest modification time under `target` (a file or a folder), 0 when absent. */
function newest(target) {
  if (!existsSync(target)) return 0;
  const stat = statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = 0;
  for (const entry of readdirSync(target, { withFileTypes: true })) latest = Math.max(latest, newest(path.join(target, entry.name)));
  return latest;
}

const built = Math.min(...entries.map((file) => (existsSync(file) ? statSync(file).mtimeMs : 0)));
const changed = Math.max(...sources.map(newest));
const sourcePresent = existsSync(path.join(root, 'src'));

// Current, or a production image that ships dist/ without src/.
if (built > 0 && (!sourcePresent || built >= changed)) process.exit(0);

if (!sourcePresent) {
  process.stderr.write(`error: ${path.relative(root, entries[0])} is missing and there is no src/ to build it from\n`);
  process.exit(1);
}

let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  process.stderr.write(
    `error: dist/ is ${built > 0 ? 'older than src/' : 'missing'} and TypeScript is not installed (a production install?).\n` +
      '  Build before pruning: npm ci && npm run build && npm prune --omit=dev\n',
  );
  process.exit(1);
}

process.stderr.write(`dist/ is ${built > 0 ? 'older than src/' : 'missing'}: building (tsc -p tsconfig.build.json)\n`);
// tsc reports type errors on stdout: moved to stderr, like everything this script says.
const result = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { cwd: root, stdio: ['ignore', 2, 2] });
if (result.status !== 0) {
  process.stderr.write('error: the build failed (see above)\n');
  process.exit(1);
}
