import {
  getOperationAST,
  GraphQLError,
  Kind,
  parse,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { AppError } from '../errors/app-error.js';
import { coerceVariables, coercionDetail } from './variables.js';
import { validationErrorType, type ValidationErrorType } from './builder.js';
import { appErrorToGraphQL, refusedVariable } from './errors.js';

/**
 * Errors graphql-js raises before any resolver runs: the document's syntax, its validation
 * (graphql-armor's limits included), literal arguments and variable values that do not coerce.
 * Every GraphQL error carries `extensions.code` equal to the REST
 * `error.type` and `extensions.details` for validation failures, so these become AppErrors:
 * a refused argument or variable is its root field's validation type (`validation_error`, or
 * `invalid_request` for scheduling and video, as their REST paths answer) with the argument's
 * dotted path; anything else wrong with the document is `invalid_request`. All are 400s; what
 * /graphql answers them with is decided in src/http/graphql.ts (useGraphQLOverHttpStatuses).
 */
export function requestError(schema: GraphQLSchema, error: GraphQLError, executed?: DocumentNode): AppError {
  const document = executed ?? parsed(error);
  const refused = refusedVariable(error.message);
  if (refused) {
    const { variable, field } = refused;
    const origin = error.originalError instanceof AppError ? error.originalError : undefined;
    // `Variable "$n" got invalid value "x"; Int cannot represent non-integer value: "x"`: the reason.
    const reason = origin?.message ?? (/; /.test(error.message) ? error.message.slice(error.message.lastIndexOf('; ') + 2) : error.message);
    const detail = { field, ...coercionDetail(reason) };
    const found = document && locate(document, (value) => value.kind === Kind.VARIABLE && value.name.value === variable);
    return new AppError(typeOf(schema, found), `Invalid input: ${field}: ${detail.message}`, { details: [detail] });
  }
  const offset = error.locations?.[0] && error.source ? offsetOf(error.source.body, error.locations[0]) : undefined;
  const found = document && offset !== undefined ? locate(document, undefined, offset) : undefined;
  // graphql-js: `Field "f" argument "a" of type "T!" is required, but it was not provided.` (at
  // the field), `Field "Input.x" of required type "T!" was not provided.` (at the object value).
  const missingArgument = /^Field "[^"]+" argument "([^"]+)" of type .* is required/.exec(error.message)?.[1];
  if (found && (found.inArgument || missingArgument)) {
    const missing = missingArgument ?? /^Field "(?:[^"]*\.)?([^".]+)" of required type .* was not provided/.exec(error.message)?.[1];
    const path = [...found.path, ...(missing ? [missing] : [])];
    const origin = error.originalError instanceof AppError ? error.originalError : undefined;
    const detail = { field: path.join('.'), ...coercionDetail(origin?.message ?? error.message) };
    return new AppError(typeOf(schema, found), `Invalid input: ${detail.field}: ${detail.message}`, { details: [detail] });
  }
  // GraphQL over HTTP: a mutation sent with GET is 405 with `Allow: POST` (yoga says so in its
  // extensions), not a 400.
  const http = error.extensions?.http as { status?: number; headers?: Record<string, string> } | undefined;
  if (http?.status === 405) return new AppError('method_not_allowed', error.message, { headers: http.headers });
  return new AppError('invalid_request', error.message);
}

/** Whether an error is one of the document's (no resolver ran): no original error, or a scalar's refusal of a literal or variable. */
export function isRequestError(error: GraphQLError): boolean {
  if (error.path) return false;
  return !error.originalError || /^(?:Variable "\$|Expected value of type ")/.test(error.message);
}

interface Found {
  operation: OperationDefinitionNode['operation'];
  rootField: string;
  /** Argument name, then object fields and list indexes down to the node. */
  path: string[];
  inArgument: boolean;
}

function parsed(error: GraphQLError): DocumentNode | undefined {
  if (!error.source) return undefined;
  try {
    return parse(error.source);
  } catch {
    return undefined;
  }
}

function offsetOf(body: string, { line, column }: { line: number; column: number }): number {
  let offset = 0;
  for (let l = 1; l < line; l++) offset = body.indexOf('\n', offset) + 1;
  return offset + column - 1;
}

function typeOf(schema: GraphQLSchema, found: Found | undefined): ValidationErrorType {
  if (!found) return 'validation_error';
  const root = found.operation === 'mutation' ? schema.getMutationType() : found.operation === 'subscription' ? schema.getSubscriptionType() : schema.getQueryType();
  return root ? validationErrorType({ parentType: root, fieldName: found.rootField }) : 'validation_error';
}

/**
 * The root field, and the argument path, of the first value `matches` accepts, or of the node
 * (field, argument, object field or value) that starts at `offset`.
 */
function locate(document: DocumentNode, matches?: (value: ValueNode) => boolean, offset?: number): Found | undefined {
  const fragments = new Map(
    document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]),
  );
  const at = (node: { loc?: { start: number } }) => offset !== undefined && node.loc?.start === offset;
  const inValue = (value: ValueNode, path: string[]): string[] | undefined => {
    if (at(value) || matches?.(value)) return path;
    if (value.kind === Kind.OBJECT) {
      for (const field of value.fields) {
        const inner = at(field) ? [...path, field.name.value] : inValue(field.value, [...path, field.name.value]);
        if (inner) return inner;
      }
    }
    if (value.kind === Kind.LIST) {
      for (const [index, item] of value.values.entries()) {
        const inner = inValue(item, [...path, String(index)]);
        if (inner) return inner;
      }
    }
    return undefined;
  };
  const inSelections = (set: SelectionSetNode | undefined, seen: Set<string>): { path: string[]; inArgument: boolean } | undefined => {
    for (const selection of set?.selections ?? []) {
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments.get(selection.name.value);
        if (!fragment || seen.has(fragment.name.value)) continue;
        const inner = inSelections(fragment.selectionSet, new Set([...seen, fragment.name.value]));
        if (inner) return inner;
        continue;
      }
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        const inner = inSelections(selection.selectionSet, seen);
        if (inner) return inner;
        continue;
      }
      if (at(selection)) return { path: [], inArgument: false };
      for (const argument of selection.arguments ?? []) {
        const path = at(argument) ? [argument.name.value] : inValue(argument.value, [argument.name.value]);
        if (path) return { path, inArgument: true };
      }
      const inner = inSelections(selection.selectionSet, seen);
      if (inner) return inner;
    }
    return undefined;
  };
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    for (const root of rootFields(definition.selectionSet, fragments, new Set())) {
      const inner = inSelections({ kind: Kind.SELECTION_SET, selections: [root] }, new Set());
      if (inner) return { operation: definition.operation, rootField: root.name.value, ...inner };
    }
  }
  return undefined;
}

/** The root fields of an operation, through fragments spread at its root. */
function rootFields(set: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>, seen: Set<string>) {
  const fields: import('graphql').FieldNode[] = [];
  for (const selection of set.selections) {
    if (selection.kind === Kind.FIELD) fields.push(selection);
    else if (selection.kind === Kind.INLINE_FRAGMENT) fields.push(...rootFields(selection.selectionSet, fragments, seen));
    else {
      const fragment = fragments.get(selection.name.value);
      if (fragment && !seen.has(fragment.name.value)) fields.push(...rootFields(fragment.selectionSet, fragments, new Set([...seen, fragment.name.value])));
    }
  }
  return fields;
}

/**
 * The mapping as a yoga plugin, on the parse and validation results (yoga's own handling marks
 * these GRAPHQL_VALIDATION_FAILED, with no REST type or details) and on an
 * execution that stopped at its variables. A subscription's are mapped where errors are masked.
 */
/**
 * The variables an executor refused, each problem with its whole path (`i.scheduledAtUtc`,
 * `i.bogus`): graphql-jit, which runs compiled documents, names only the innermost field
 * (`Variable "$scheduledAtUtc"`) and drops the path of a missing or unknown input field, so the
 * values are checked again the way graphql-js does (what the REST adapter does with a refusal).
 * Typed by the root field that reads the first refused variable.
 */
export function refusedVariables(schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined, values: unknown): AppError | undefined {
  const operation = getOperationAST(document, operationName);
  if (!operation) return undefined;
  const raw = typeof values === 'object' && values !== null ? (values as Record<string, unknown>) : {};
  const { details } = coerceVariables(schema, operation.variableDefinitions ?? [], raw, new Set());
  const first = details[0];
  if (!first) return undefined;
  const variable = first.field.split('.')[0];
  const found = locate(document, (value) => value.kind === Kind.VARIABLE && value.name.value === variable);
  return new AppError(typeOf(schema, found), `Invalid input: ${first.field}: ${first.message}`, { details });
}

export function useRequestErrors(schema: GraphQLSchema): Plugin {
  const map = (error: unknown, document?: DocumentNode) =>
    error instanceof GraphQLError && isRequestError(error) ? appErrorToGraphQL(requestError(schema, error, document), error) : error;
  return {
    onParse: () => ({ result, replaceParseResult }) => {
      if (result instanceof GraphQLError) replaceParseResult(map(result));
    },
    onValidate: () => ({ result, setResult }) => {
      if (result.length > 0) setResult(result.map((error) => map(error)));
    },
    // Variable values are coerced when execution starts: the executed document names the root
    // field (graphql-jit's errors carry no source to find it in). Subscriptions go through maskError.
    onExecute: ({ args }) => ({
      onExecuteDone: ({ result, setResult }) => {
        if (!isAsyncIterable(result) && result.errors?.length && !result.data) {
          const variables = result.errors.some((error) => refusedVariable(error.message))
            ? refusedVariables(schema, args.document, args.operationName, args.variableValues)
            : undefined;
          setResult(variables ? { errors: [appErrorToGraphQL(variables)] } : { ...result, errors: result.errors.map((error) => map(error, args.document) as GraphQLError) });
        }
      },
    }),
  };
}
