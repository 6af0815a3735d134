import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// Images cannot be built on the machines CI runs on; scripts/release-smoke.sh proves the
// production install instead. The Dockerfile must therefore run exactly the commands the smoke
// script runs, so what CI proves is what the image does.
const root = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

/** The lines between `# BEGIN production install` and `# END production install`. */
function marked(text: string, file: string): string[] {
  const lines = text.split('\n').map((l) => l.trim());
  const begin = lines.indexOf('# BEGIN production install');
  const end = lines.indexOf('# END production install');
  if (begin === -1 || end <= begin) throw new Error(`${file} has no "# BEGIN/END production install" block`);
  return lines.slice(begin + 1, end).filter((l) => l !== '' && !l.startsWith('#'));
}

/** The Dockerfile's instructions with continuation lines joined. */
function instructions(text: string): string[] {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim().replace(/\s+/g, ' '))
    .filter((l) => l !== '' && !l.startsWith('#'));
}

const dockerfile = read('Dockerfile');
const smoke = read('scripts/release-smoke.sh');
const smokeNode = read('scripts/release-smoke.mjs');

describe('Dockerfile against scripts/release-smoke.sh', () => {
  it('the build stage RUNs exactly the install, build and prune commands of the smoke script, in order', () => {
    const commands = marked(smoke, 'scripts/release-smoke.sh');
    expect(commands).toEqual(['npm ci --no-audit --no-fund --loglevel=error', 'npm run build', 'npm prune --omit=dev --no-audit --no-fund --loglevel=error']);
    const runs = marked(dockerfile, 'Dockerfile')
      .filter((l) => l.startsWith('RUN '))
      .map((l) => l.slice(4).trim());
    expect(runs).toEqual(commands);
  });

  it('the image starts the file the smoke script starts, and runs CLI commands from dist/', () => {
    expect(smokeNode).toContain("['dist/src/main.js']");
    expect(smokeNode).toContain("'dist/src/cli/main.js'");
    const cmd = instructions(dockerfile).filter((l) => l.startsWith('CMD '));
    expect(cmd).toEqual(['CMD ["node", "--enable-source-maps", "dist/src/main.js"]']);
  });

  it('two stages on node:24-slim; the runtime stage copies the pruned install, runs as a non-root user, checks /readyz, exposes both ports', () => {
    const lines = instructions(dockerfile);
    const from = lines.filter((l) => l.startsWith('FROM '));
    expect(from).toEqual(['FROM node:24-slim AS build', 'FROM node:24-slim']);
    const runtime = lines.slice(lines.indexOf('FROM node:24-slim'));
    expect(runtime).toContain('COPY --from=build /app/node_modules ./node_modules');
    expect(runtime).toContain('COPY --from=build /app/dist ./dist');
    expect(runtime).toContain('COPY --from=build /app/migrations ./migrations');
    // Nothing is installed in the runtime stage: its dependencies are the pruned ones.
    expect(runtime.filter((l) => /^RUN .*\bnpm\b/.test(l))).toEqual([]);
    expect(runtime).toContain('USER node');
    expect(runtime.find((l) => l.startsWith('HEALTHCHECK '))).toMatch(/\/readyz/);
    expect(runtime).toContain('EXPOSE ${PORT} ${VIDEO_PORT}');
  });
});

describe('compose.yaml', () => {
  it('PostgreSQL, Redis, two instances of the image and nginx with its committed config', () => {
    const compose = read('compose.yaml');
    for (const service of ['postgres', 'redis', 'app1', 'app2', 'lb']) expect(compose).toMatch(new RegExp(`^  ${service}:`, 'm'));
    expect(compose).toContain('./deploy/nginx.conf:/etc/nginx/nginx.conf:ro');
    const nginx = read('deploy/nginx.conf');
    expect(nginx).toContain('server app1:3000');
    expect(nginx).toContain('server app2:3000');
  });
});
