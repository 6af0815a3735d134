import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// A production install (npm prune --omit=dev) has only "dependencies": a package src/ imports
// from devDependencies starts in development and dies in production at its first import.
const root = path.resolve(import.meta.dirname, '../..');
const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** The package names a file imports at run time (type-only imports are erased by tsc). */
function runtimePackages(text: string): string[] {
  const names = new Set<string>();
  const pattern = /^\s*(import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?'([^']+)'|import\(\s*'([^']+)'\s*\)/gm;
  for (const match of text.matchAll(pattern)) {
    if (match[2]) continue;
    const specifier = match[3] ?? match[4]!;
    if (specifier.startsWith('.') || specifier.startsWith('node:') || builtinModules.includes(specifier)) continue;
    const parts = specifier.split('/');
    names.add(specifier.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!);
  }
  return [...names];
}

describe('production dependencies', () => {
  const imported = new Map<string, string>();
  for (const file of sourceFiles(path.join(root, 'src'))) {
    for (const name of runtimePackages(readFileSync(file, 'utf8'))) imported.set(name, path.relative(root, file));
  }

  it('finds the packages src/ imports', () => {
    // The scan itself works: these are imported at run time by the server.
    expect([...imported.keys()]).toEqual(expect.arrayContaining(['graphql-yoga', 'hono', 'postgres', 'graphql-sse']));
  });

  it('every package src/ imports at run time is in "dependencies"', () => {
    const missing = [...imported].filter(([name]) => !(name in manifest.dependencies)).map(([name, file]) => `${name} (imported by ${file})`);
    expect(missing).toEqual([]);
  });

  it('tools for development only are not in "dependencies"', () => {
    for (const tool of ['tsx', 'typescript', 'vitest', 'drizzle-kit']) expect(manifest.dependencies).not.toHaveProperty(tool);
  });
});
