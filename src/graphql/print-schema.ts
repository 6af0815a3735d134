import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { lexicographicSortSchema, printSchema } from 'graphql';
import { projectRoot } from '../db/migrate.js';
import { schema } from './schema.js';

export const schemaFile = () => path.join(projectRoot(), 'schema.graphql');
export const printedSchema = () => `${printSchema(lexicographicSortSchema(schema))}\n`;

if (process.argv[1] && path.resolve(process.argv[1]).includes('print-schema')) {
  writeFileSync(schemaFile(), printedSchema());
  console.log(`wrote ${schemaFile()}`);
}
