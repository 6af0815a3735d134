import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// Operators learn the settings from docs/operations.md: a variable added to the config schema
// without a row there is a setting nobody can find.
describe('environment variables', () => {
  it('every variable src/config.ts reads has a row in docs/operations.md', () => {
    const source = readFileSync(new URL('../../src/config.ts', import.meta.url), 'utf8');
    const schema = source.slice(source.indexOf('const envSchema = z.object({'), source.indexOf('export type Config'));
    const names = [...schema.matchAll(/^ {2}([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]);
    expect(names.length).toBeGreaterThan(30);
    const operations = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
    expect(names.filter((name) => !operations.includes(`\`${name}\``))).toEqual([]);
  });
});
