import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // graphql 16 ships index.mjs (vite's pick) beside index.js (node's pick for the Pothos and
    // yoga packages vitest leaves external): one realm, or instanceof checks fail.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Two cores: one embedded database per test file is memory- and CPU-heavy.
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    // Each fork runs its test files one after another in one module graph: importing the server's
    // graph again for every file cost ~2 s of each file's time (`collect` 227 s of the PGlite pass
    // against 18 s). Test files own their state: each starts its own servers and databases, and
    // restores timers and spies in afterEach.
    isolate: false,
  },
});
