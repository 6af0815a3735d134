import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { projectRoot } from '../../src/db/migrate.js';

/**
 * A copy of the migrations folder whose journal stops before `tag`: a database migrated with it
 * is the schema an upgrade to `tag` starts from. `remove` deletes the copy.
 */
export function migrationsBefore(tag: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'migrations-'));
  cpSync(path.join(projectRoot(), 'migrations'), dir, { recursive: true });
  const journalPath = path.join(dir, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: { tag: string }[] };
  const at = journal.entries.findIndex((e) => e.tag === tag);
  if (at <= 0) throw new Error(`migration ${tag} is not in the journal (or is the first)`);
  journal.entries = journal.entries.slice(0, at);
  writeFileSync(journalPath, JSON.stringify(journal));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
