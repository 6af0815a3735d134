import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { printedSchema, schemaFile } from '../src/graphql/print-schema.js';

describe('schema.graphql', () => {
  it('is committed and matches the code (run `npm run schema:print` after changing the schema)', () => {
    expect(readFileSync(schemaFile(), 'utf8')).toBe(printedSchema());
  });
});
