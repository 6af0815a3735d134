import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

// Imports run one way: the kernel (errors, validation, time, web, db) knows no domain, the GraphQL
// layer knows no domain and no listener (schema.ts, the composition root, gathers the domains'
// Pothos files), and the REST adapter knows no listener.
const src = join(import.meta.dirname, '../../src');
const domains = ['analytics', 'apps', 'events', 'scheduling', 'sends', 'video', 'webhooks', 'importer', 'cli', 'demo'];

function importsOf(folder: string): { file: string; target: string }[] {
  const found: { file: string; target: string }[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) {
        for (const match of readFileSync(path, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)) {
          const target = relative(src, join(dir, match[1]!)).split('/')[0]!.replace(/\.js$/, '');
          found.push({ file: relative(src, path), target });
        }
      }
    }
  };
  walk(join(src, folder));
  return found;
}

const offending = (folder: string, forbidden: readonly string[], allowedFiles: readonly string[] = []) =>
  importsOf(folder)
    .filter(({ file, target }) => forbidden.includes(target) && !allowedFiles.includes(file))
    .map(({ file, target }) => `${file} -> ${target}/`);

describe('import direction', () => {
  it('src/graphql imports no domain, no REST adapter and no listener', () => {
    expect(offending('graphql', [...domains, 'rest', 'http'], ['graphql/schema.ts'])).toEqual([]);
  });

  it('src/rest imports no listener', () => {
    expect(offending('rest', ['http'])).toEqual([]);
  });

  it('the kernel imports no domain, no GraphQL, REST or listener code', () => {
    const above = [...domains, 'graphql', 'rest', 'http', 'auth', 'realtime', 'observability', 'openapi'];
    for (const folder of ['errors', 'validation', 'time', 'web']) expect(offending(folder, [...above, 'db'])).toEqual([]);
    // db/schema.ts is the table registry drizzle-kit reads: it gathers every domain's tables.
    expect(offending('db', above, ['db/schema.ts'])).toEqual([]);
  });

  it('the check sees imports (it would catch one)', () => {
    expect(importsOf('rest').some(({ target }) => target === 'graphql')).toBe(true);
  });
});
