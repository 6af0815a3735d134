import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isAbstractType,
  isScalarType,
  Kind,
  type GraphQLInputType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type SelectionSetNode,
  type GraphQLObjectType,
  type GraphQLInterfaceType,
} from 'graphql';
import { instantJsonSchema } from '../time/instant-input.js';
import { refinementOf } from './refinements.js';

/** A JSON Schema 2020-12 object (OpenAPI 3.1 schemas are JSON Schema). */
export type JsonSchema = Record<string, unknown>;

/** The JSON shape of each scalar as the API serializes it. */
function scalarSchema(name: string): JsonSchema {
  switch (name) {
    case 'String':
    case 'ID':
      return { type: 'string' };
    case 'Int':
      return { type: 'integer' };
    case 'Float':
      return { type: 'number' };
    case 'Boolean':
      return { type: 'boolean' };
    case 'UUID':
      return { type: 'string', format: 'uuid' };
    case 'DateTime':
      return { type: 'string', format: 'date-time' };
    case 'JSON':
      return {};
    default:
      throw new Error(`OpenAPI: no JSON Schema for GraphQL scalar ${name}`);
  }
}

/** `null` added to a schema's allowed values (JSON Schema 2020-12 style). */
export function nullable(schema: JsonSchema): JsonSchema {
  if (Object.keys(schema).length === 0) return schema;
  if (typeof schema.type === 'string' && !('anyOf' in schema) && !('$ref' in schema)) {
    // An enum lists null too, else the enum alone would still refuse it.
    return { ...schema, type: [schema.type, 'null'], ...(Array.isArray(schema.enum) ? { enum: [...(schema.enum as unknown[]), null] } : {}) };
  }
  return { anyOf: [schema, { type: 'null' }] };
}

/** An input type (a variable's type) as JSON Schema; whether it is required is the caller's business. */
export function inputTypeSchema(type: GraphQLInputType): JsonSchema {
  if (isNonNullType(type)) return inputTypeSchema(type.ofType);
  if (isListType(type)) return { type: 'array', items: inputTypeSchema(type.ofType) };
  // An input instant is also bounded to the years the service accepts.
  if (isScalarType(type)) return type.name === 'DateTime' ? { ...instantJsonSchema } : scalarSchema(type.name);
  if (isEnumType(type)) return { type: 'string', enum: type.getValues().map((v) => v.name) };
  if (isInputObjectType(type)) {
    const fields = Object.values(type.getFields());
    const properties: Record<string, JsonSchema> = {};
    for (const field of fields) properties[field.name] = withDescription(inputTypeSchema(field.type), field.description);
    const required = fields.filter((f) => isNonNullType(f.type) && f.defaultValue === undefined).map((f) => f.name);
    return { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false };
  }
  throw new Error(`OpenAPI: unsupported input type ${String(type)}`);
}

const withDescription = (schema: JsonSchema, description: string | null | undefined): JsonSchema =>
  description ? { ...schema, description } : schema;

/**
 * The JSON a selection set produces: one property per selected field under its response key
 * (the alias, so the REST API's snake_case names), typed and nullable as the schema says.
 */
export function selectionSchema(
  schema: GraphQLSchema,
  type: GraphQLOutputType,
  selectionSet: SelectionSetNode | undefined,
  /** Merged into the leaf's (scalar or enum) schema, under its nullability. */
  refinement?: JsonSchema,
): JsonSchema {
  // Only a type without `!` can answer null: a non-null field that fails nulls its parent
  // instead (GraphQL's null propagation), so its own value is never null in a response.
  const required = isNonNullType(type);
  const inner = isNonNullType(type) ? type.ofType : type;
  const wrap = (s: JsonSchema) => (required ? s : nullable(s));
  if (isListType(inner)) return wrap({ type: 'array', items: selectionSchema(schema, inner.ofType, selectionSet, refinement) });
  const named = getNamedType(inner);
  if (isScalarType(named)) return wrap({ ...scalarSchema(named.name), ...refinement });
  // The enum's values as the response spells them: a GraphQL enum serializes to its name.
  if (isEnumType(named)) return wrap({ type: 'string', enum: named.getValues().map((v) => v.name), ...refinement });
  if (!selectionSet) throw new Error(`OpenAPI: ${named.name} selected without fields`);
  if (isAbstractType(named)) throw new Error(`OpenAPI: abstract type ${named.name} in a REST document`);
  return wrap(objectSchema(schema, named as GraphQLObjectType | GraphQLInterfaceType, selectionSet));
}

function objectSchema(schema: GraphQLSchema, type: GraphQLObjectType | GraphQLInterfaceType, selectionSet: SelectionSetNode): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const fields = type.getFields();
  for (const selection of selectionSet.selections) {
    if (selection.kind !== Kind.FIELD) throw new Error('OpenAPI: REST documents select plain fields only');
    const field = fields[selection.name.value];
    if (!field) throw new Error(`OpenAPI: ${type.name}.${selection.name.value} does not exist`);
    const key = selection.alias?.value ?? selection.name.value;
    properties[key] = withDescription(selectionSchema(schema, field.type, selection.selectionSet, refinementOf(type.name, field.name)), field.description);
  }
  return { type: 'object', properties, required: Object.keys(properties) };
}

/** Strips a non-null-or-null schema back to its non-null form (for items known to be present). */
export function nonNull(schema: JsonSchema): JsonSchema {
  if (Array.isArray(schema.type)) {
    const types = (schema.type as string[]).filter((t) => t !== 'null');
    return { ...schema, type: types.length === 1 ? types[0] : types };
  }
  if (Array.isArray(schema.anyOf)) {
    const rest = (schema.anyOf as JsonSchema[]).filter((s) => s.type !== 'null');
    if (rest.length === 1) {
      const { anyOf: _a, ...others } = schema;
      return { ...rest[0], ...others };
    }
  }
  return schema;
}
