import { Column, is } from 'drizzle-orm';

/** What a prepared drizzle select keeps of its field list (drizzle-orm's pg sessions). */
interface PreparedSelect {
  fields?: { path: string[]; field: unknown }[];
  customResultMapper?: (rows: unknown[][]) => unknown[];
}

type Decode = (value: unknown) => unknown;

/**
 * drizzle maps each row of a select by walking its field list: an entity check and a path walk
 * per column per row, a visible share of a list page's CPU. For a flat select of columns (no
 * joins, no nested objects) this compiles the same mapping once per prepared query into one
 * function that builds each row as an object literal, calling a column's own `mapFromDriverValue`
 * exactly where drizzle would (never for null). Anything else keeps drizzle's mapping. Applies to queries kept for reuse (db/prepared.ts).
 */
export function compileRowMapper<Q extends object>(query: Q): Q {
  const prepared = query as PreparedSelect;
  const fields = prepared.fields;
  if (!fields || fields.length === 0 || prepared.customResultMapper) return query;
  if (!fields.every((f) => f.path.length === 1 && is(f.field, Column))) return query;
  const decoders: Decode[] = [];
  const properties = fields.map(({ path, field }, index) => {
    const column = field as Column;
    const value = `r[${index}]`;
    // Column's own mapFromDriverValue is the identity (text, uuid, boolean...): nothing to call.
    if (column.mapFromDriverValue === Column.prototype.mapFromDriverValue) return `${JSON.stringify(path[0])}: ${value}`;
    decoders.push((v) => column.mapFromDriverValue(v));
    return `${JSON.stringify(path[0])}: (v = ${value}) === null ? null : d[${decoders.length - 1}](v)`;
  });
  // Generated from the select's own field names (never from input): one object shape for every row.
  const mapRow = new Function('d', `return function mapRow(r) { let v; return { ${properties.join(', ')} }; }`)(decoders) as (
    row: unknown[],
  ) => unknown;
  prepared.customResultMapper = (rows) => rows.map(mapRow);
  return query;
}
