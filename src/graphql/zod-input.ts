import type { InputOrArgRef, InputType } from '@pothos/core';
import { z } from 'zod';
import { builder } from './builder.js';

// An input type's fields, or a field's arguments, from the zod object that validates them, so each
// one's GraphQL type and whether it is required are written once. Pothos' zod plugin validates
// arguments but builds no types. Descriptions, and the type of a nested object, come from hints.

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

export interface InputFieldHint {
  description: string;
  /** The GraphQL type where zod does not tell it: a nested input object, or JSON for z.custom. */
  type?: InputType<Types> | [InputType<Types>];
  /** Overrides what zod says, e.g. for a fixed value the resolver fills in when it is omitted. */
  required?: boolean;
  /** Validates the field with its zod schema (without the optional or nullable around it) as arguments are parsed. */
  validate?: true;
}

/** One hint per field of the zod object: a description alone, or an InputFieldHint. */
export type InputFieldHints<Shape> = { [K in keyof Shape]: string | InputFieldHint };

type Def = {
  type: string;
  format?: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  element?: z.ZodType;
  values?: unknown[];
};
const defOf = (schema: z.ZodType) => schema._zod.def as unknown as Def;

const wrappers = new Set(['optional', 'nullable', 'default', 'prefault']);

/** What a field accepts: the schema under optional, nullable, default and transforms; optional when any of the first three is around it. */
function unwrap(schema: z.ZodType): { core: z.ZodType; optional: boolean } {
  let optional = false;
  let current = schema;
  for (;;) {
    const def = defOf(current);
    if (wrappers.has(def.type)) {
      optional = true;
      current = def.innerType!;
    } else if (def.type === 'pipe') {
      // A transform after a schema (.transform) or before one (z.preprocess): the schema is the input.
      current = defOf(def.in!).type === 'transform' ? def.out! : def.in!;
    } else {
      return { core: current, optional };
    }
  }
}

/** The field's schema without what makes it optional: `.nullish().transform(...)` or `.optional()` around it. */
function withoutOptional(schema: z.ZodType): z.ZodType {
  const def = defOf(schema);
  if (wrappers.has(def.type)) return withoutOptional(def.innerType!);
  if (def.type === 'pipe' && defOf(def.out!).type === 'transform' && wrappers.has(defOf(def.in!).type)) return withoutOptional(def.in!);
  return schema;
}

function graphqlType(schema: z.ZodType, where: string): InputType<Types> | [InputType<Types>] {
  const def = defOf(schema);
  switch (def.type) {
    case 'string':
      return def.format === 'uuid' ? 'UUID' : 'String';
    case 'number':
      return (schema as z.ZodNumber).isInt ? 'Int' : 'Float';
    case 'boolean':
      return 'Boolean';
    case 'date':
      return 'DateTime';
    case 'enum':
      return 'String';
    case 'literal':
      if (def.values!.every((v) => typeof v === 'string')) return 'String';
      break;
    case 'record':
    case 'unknown':
    case 'any':
      return 'JSON';
    case 'array': {
      const item = graphqlType(unwrap(def.element!).core, `${where}[]`);
      if (!Array.isArray(item)) return [item];
      break;
    }
  }
  throw new Error(`${where}: no GraphQL type for zod ${def.type}; give one in its hint`);
}

/**
 * The Pothos fields of an input type (`fields: (t) => ...`) or an argument map (`builder.args`),
 * one per field of `schema`, in its order: the GraphQL type from the zod type (string, uuid, int,
 * number, boolean, date, enum, literal, record, arrays of these), required unless zod lets it be
 * absent or null (GraphQL cannot require a nullable field).
 */
export function zodInputFields<Shape extends z.core.$ZodShape, Kind extends 'Arg' | 'InputObject'>(
  t: PothosSchemaTypes.InputFieldBuilder<Types, Kind>,
  schema: { shape: Shape },
  hints: InputFieldHints<Shape>,
  options: { nullAsAbsent?: boolean } = {},
): { [K in keyof Shape]: InputOrArgRef<Types, z.input<Shape[K]>, Kind> } {
  const fields: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(schema.shape) as [keyof Shape & string, z.ZodType][]) {
    const given: string | InputFieldHint = hints[name];
    const hint: InputFieldHint = typeof given === 'string' ? { description: given } : given;
    const { core, optional } = unwrap(field);
    const required = hint.required ?? !optional;
    // GraphQL cannot say "optional but not null": a nullable field whose schema refuses null says
    // what null does, or its resolver drops nulls before checking (nullAsAbsent).
    const refusesNull = !required && !field.safeParse(null).success;
    let { description } = hint;
    if (refusesNull && options.nullAsAbsent) description = `${description} null: the same as leaving it out.`;
    else if (refusesNull && !/\bnull\b/.test(description)) throw new Error(`${name}: optional in GraphQL but its schema refuses null; say what null does in its description`);
    fields[name] = t.field({
      type: hint.type ?? graphqlType(core, name),
      required,
      description,
      // The schema the resolver checks the field with: REST reports its problems alongside those of coercion.
      extensions: { zod: refusesNull && options.nullAsAbsent ? z.preprocess((v) => (v === null ? undefined : v), field) : field },
      ...(hint.validate ? { validate: { schema: withoutOptional(field) } } : {}),
    } as never);
  }
  return fields as { [K in keyof Shape]: InputOrArgRef<Types, z.input<Shape[K]>, Kind> };
}
