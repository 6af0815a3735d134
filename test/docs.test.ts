import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * README.md and docs/ are what a clone of the repository carries: every relative link must reach
 * a file inside it (and an anchor a heading of that file), nothing may send the reader to
 * documents the repository does not have, and README stays a front door, not a manual.
 */
const root = path.resolve(import.meta.dirname, '..');
const README_MAX_LINES = 300;

/** Design notes kept beside the repository, not in it: a clone has none of them. */
const OUTSIDE_DOCUMENTS = /\b(?:SPEC|DESIGN|PITFALLS)(?:\.md)?\b|\.\.\/shared\b/g;

/**
 * A code span that is a path in one of the repository's folders (`src/http/server.ts`,
 * `test/faults/`): files get renamed and split, and a document naming the old path sends the
 * reader nowhere. Installed packages (node_modules) are not the repository's.
 */
const REPOSITORY_PATH = /`((?:src|test|scripts|bench|migrations|docs|patches|audit|\.ci)\/[A-Za-z0-9_./-]*)`/g;

/** README.md and every Markdown file under docs/. */
function documentationFiles(dir = root): string[] {
  const files = [path.join(dir, 'README.md')];
  const walk = (folder: string) => {
    for (const name of readdirSync(folder)) {
      const full = path.join(folder, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name.endsWith('.md')) files.push(full);
    }
  };
  if (existsSync(path.join(dir, 'docs'))) walk(path.join(dir, 'docs'));
  return files;
}

/** The text outside fenced code blocks and inline code spans, where Markdown makes links. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** Targets of inline links and images (`[text](target)`, `![alt](target "title")`) and reference definitions. */
function linkTargets(markdown: string): string[] {
  const text = prose(markdown);
  const targets: string[] = [];
  for (const [, target] of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) targets.push(target!);
  for (const [, target] of text.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)) targets.push(target!);
  return targets;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .replace(/`/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const [, heading] of markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(heading!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  return result;
}

/** What is wrong with the links and mentions of one documentation file (empty when nothing is). */
function documentationProblems(file: string, markdown: string, repoRoot = root): string[] {
  const problems: string[] = [];
  const name = path.relative(repoRoot, file);
  // Documents the repository does not carry, linked or only named (in code spans too).
  for (const [mention] of markdown.matchAll(OUTSIDE_DOCUMENTS)) problems.push(`${name} mentions ${mention}, which is not in the repository`);
  for (const [, named] of markdown.matchAll(REPOSITORY_PATH)) {
    if (!named!.includes('node_modules') && !existsSync(path.join(repoRoot, named!))) problems.push(`${name} names ${named}: no such file or folder`);
  }
  for (const target of linkTargets(markdown)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: …: a page on the web, not a file
    const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
    const decoded = decodeURIComponent(pathPart);
    const resolved = decoded === '' ? file : decoded.startsWith('/') ? path.join(repoRoot, decoded) : path.resolve(path.dirname(file), decoded);
    const relative = path.relative(repoRoot, resolved);
    if (relative.startsWith('..') || path.isAbsolute(relative)) {
      problems.push(`${name} links ${target}, outside the repository`);
      continue;
    }
    if (!existsSync(resolved)) {
      problems.push(`${name} links ${target}: no such file`);
      continue;
    }
    if (anchor && resolved.endsWith('.md') && !anchors(readFileSync(resolved, 'utf8')).has(anchor)) {
      problems.push(`${name} links ${target}: no heading with that anchor in ${relative}`);
    }
  }
  return problems;
}

describe('README.md and docs/', () => {
  it('link only to files inside the repository that exist, name only paths it has, and no document it lacks', () => {
    const files = documentationFiles();
    expect(files.length).toBeGreaterThan(1);
    const problems = files.flatMap((file) => documentationProblems(file, readFileSync(file, 'utf8')));
    expect(problems).toEqual([]);
  });

  it('no source, test, script, benchmark or migration names a document the repository lacks', () => {
    const self = path.relative(root, import.meta.filename);
    const problems: string[] = [];
    const walk = (folder: string) => {
      for (const entry of readdirSync(folder, { withFileTypes: true })) {
        const full = path.join(folder, entry.name);
        // Installed packages are not the repository's (bench/peers installs its own on demand).
        if (entry.isDirectory()) {
          if (entry.name !== 'node_modules') walk(full);
        }
        else if (/\.(ts|mts|mjs|js|sh|sql)$/.test(entry.name) && path.relative(root, full) !== self) {
          for (const [mention] of readFileSync(full, 'utf8').matchAll(OUTSIDE_DOCUMENTS)) problems.push(`${path.relative(root, full)} mentions ${mention}`);
        }
      }
    };
    for (const folder of ['src', 'test', 'bench', 'scripts', 'migrations']) walk(path.join(root, folder));
    expect(problems).toEqual([]);
  });

  it(`README.md is at most ${README_MAX_LINES} lines`, () => {
    const lines = readFileSync(path.join(root, 'README.md'), 'utf8').split('\n');
    if (lines.at(-1) === '') lines.pop();
    expect(lines.length).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it('the check itself finds each kind of problem', () => {
    const file = path.join(root, 'docs', 'example.md');
    const problems = (markdown: string) => documentationProblems(file, markdown);
    expect(problems('[spec](../../shared/SPEC.md)')).toEqual([
      'docs/example.md mentions ../shared, which is not in the repository',
      'docs/example.md mentions SPEC.md, which is not in the repository',
      'docs/example.md links ../../shared/SPEC.md, outside the repository',
    ]);
    expect(problems('as `DESIGN.md` section 7 says')).toEqual(['docs/example.md mentions DESIGN.md, which is not in the repository']);
    expect(problems('as DESIGN section 2 says')).toEqual(['docs/example.md mentions DESIGN, which is not in the repository']);
    expect(problems('[up](../../README.md)')).toEqual(['docs/example.md links ../../README.md, outside the repository']);
    expect(problems('![shot](screenshots/missing.png)')).toEqual(['docs/example.md links screenshots/missing.png: no such file']);
    expect(problems('[ref]: ./nowhere.md')).toEqual(['docs/example.md links ./nowhere.md: no such file']);
    expect(problems('[readme](../README.md#no-such-heading)')).toEqual(['docs/example.md links ../README.md#no-such-heading: no heading with that anchor in README.md']);
    expect(problems('see `test/realtime/timeline.test.ts` and `src/gone/`')).toEqual([
      'docs/example.md names test/realtime/timeline.test.ts: no such file or folder',
      'docs/example.md names src/gone/: no such file or folder',
    ]);
    // What is fine: a file of the repository, one of its headings, a page on the web, code.
    expect(problems('[readme](../README.md#quick-start) [rest](rest.md) [web](https://example.com/x.md) `[x](../../y.md)` `src/db/cursor.ts` `test/faults/`')).toEqual([]);
  });
});
