import { GraphQLError, Kind, type DocumentNode, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { AppError } from '../errors/app-error.js';
import { appErrorToGraphQL } from './errors.js';

/**
 * What a client document may weigh, checked from the cheapest count to the dearest and all of it
 * before graphql-js validates: validation's OverlappingFieldsCanBeMerged compares every pair of
 * fields that share a response name, so a document of a few thousand repeated fields cost a
 * quarter of a second of CPU to refuse. Bytes and operation name come first (before parsing),
 * the token count while parsing (graphql-armor's max-tokens stops the lexer), then one linear
 * walk of the parsed document with each fragment counted once and its counts reused wherever
 * it is spread (a fragment spread a thousand times is not walked a thousand times).
 */
export interface DocumentBudget {
  /** UTF-8 bytes of the document text. */
  bytes: number;
  /** Characters of `operationName` and of every operation's own name (metric labels, caches). */
  operationName: number;
  /** Fields of an operation with every fragment spread in place. */
  fields: number;
  /** Fields of one selection set with its fragments in place: validation's pairwise cost. */
  selections: number;
  depth: number;
  aliases: number;
  directives: number;
}

interface Counts {
  fields: number;
  aliases: number;
  directives: number;
  depth: number;
  /** Fields at this level once its fragments are flattened into it. */
  width: number;
}

const ZERO: Counts = { fields: 0, aliases: 0, directives: 0, depth: 0, width: 0 };

/** The counts of each operation and each fragment of a document (a fragment's own, for one defined but never spread). */
export function documentCounts(document: DocumentNode): { name: string; counts: Counts; widest: number }[] {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const memo = new Map<string, { counts: Counts; widest: number }>();
  const inProgress = new Set<string>();

  // Returns the set's counts and the widest flattened selection set within it.
  const walk = (set: SelectionSetNode): { counts: Counts; widest: number } => {
    const total: Counts = { ...ZERO };
    let widest = 0;
    for (const selection of set.selections) {
      total.directives += selection.directives?.length ?? 0;
      if (selection.kind === Kind.FIELD) {
        total.fields += 1;
        total.width += 1;
        if (selection.alias) total.aliases += 1;
        if (selection.selectionSet) {
          const inner = walk(selection.selectionSet);
          total.fields += inner.counts.fields;
          total.aliases += inner.counts.aliases;
          total.directives += inner.counts.directives;
          total.depth = Math.max(total.depth, inner.counts.depth + 1);
          widest = Math.max(widest, inner.widest);
        } else {
          total.depth = Math.max(total.depth, 1);
        }
        continue;
      }
      const inner = selection.kind === Kind.INLINE_FRAGMENT ? walk(selection.selectionSet) : fragment(selection.name.value);
      total.fields += inner.counts.fields;
      total.aliases += inner.counts.aliases;
      total.directives += inner.counts.directives;
      total.width += inner.counts.width;
      total.depth = Math.max(total.depth, inner.counts.depth);
      widest = Math.max(widest, inner.widest);
    }
    return { counts: total, widest: Math.max(widest, total.width) };
  };
  const fragment = (name: string): { counts: Counts; widest: number } => {
    const known = memo.get(name);
    if (known) return known;
    const definition = fragments.get(name);
    // Unknown fragments and cycles are validation's to refuse (KnownFragmentNames, NoFragmentCycles).
    if (!definition || inProgress.has(name)) return { counts: ZERO, widest: 0 };
    inProgress.add(name);
    const result = walk(definition.selectionSet);
    result.counts.directives += definition.directives?.length ?? 0;
    inProgress.delete(name);
    memo.set(name, result);
    return result;
  };

  const out: { name: string; counts: Counts; widest: number }[] = [];
  for (const d of document.definitions) {
    if (d.kind === Kind.OPERATION_DEFINITION) {
      const result = walk(d.selectionSet);
      result.counts.directives += d.directives?.length ?? 0;
      out.push({ name: d.name?.value ?? 'anonymous operation', ...result });
    } else if (d.kind === Kind.FRAGMENT_DEFINITION) {
      out.push({ name: `fragment ${d.name.value}`, ...fragment(d.name.value) });
    }
  }
  return out;
}

const refused = (message: string, field?: string) =>
  appErrorToGraphQL(
    new AppError('invalid_request', message, field ? { details: [{ field, code: 'too_long', message }] } : {}),
  );

/** The first limit a document exceeds, or undefined. */
export function overBudget(document: DocumentNode, budget: DocumentBudget): string | undefined {
  for (const d of document.definitions) {
    if ((d.kind === Kind.OPERATION_DEFINITION || d.kind === Kind.FRAGMENT_DEFINITION) && (d.name?.value.length ?? 0) > budget.operationName) {
      return `Operation and fragment names are limited to ${budget.operationName} characters`;
    }
  }
  for (const { name, counts, widest } of documentCounts(document)) {
    // The depth and alias wording is graphql-armor's, which these counts replace.
    if (counts.depth > budget.depth) return `Syntax Error: Query depth limit of ${budget.depth} exceeded, found ${counts.depth}.`;
    if (counts.fields > budget.fields) return `Field limit of ${budget.fields} exceeded in ${name}, found ${counts.fields} with fragments expanded.`;
    if (widest > budget.selections) return `Selection set limit of ${budget.selections} fields exceeded in ${name}, found ${widest} in one selection set with fragments expanded.`;
    if (counts.aliases > budget.aliases) return `Syntax Error: Aliases limit of ${budget.aliases} exceeded, found ${counts.aliases}.`;
    if (counts.directives > budget.directives) return `Syntax Error: Directives limit of ${budget.directives} exceeded, found ${counts.directives}.`;
  }
  return undefined;
}

/**
 * The budget as a yoga plugin: size and operation name at onParams (before the parse cache is
 * consulted, so an oversized text is never a cache key), the counts at onValidate (a refusal
 * sets the validation result, so graphql-js's rules never run on it).
 */
export function useDocumentBudget(budget: DocumentBudget): Plugin {
  return {
    onParams({ params, setResult }) {
      const { query, operationName } = params;
      if (typeof operationName === 'string' && operationName.length > budget.operationName) {
        setResult({ errors: [refused(`operationName is limited to ${budget.operationName} characters`, 'operationName')] });
        return;
      }
      // A character is at most 3 UTF-8 bytes (4 for a surrogate pair's two): count bytes only near the limit.
      if (typeof query === 'string' && query.length * 3 > budget.bytes && Buffer.byteLength(query) > budget.bytes) {
        setResult({ errors: [refused(`The document is limited to ${budget.bytes} bytes`, 'query')] });
      }
    },
    onValidate({ params, setResult }) {
      const problem = overBudget(params.documentAST, budget);
      if (problem) setResult([new GraphQLError(problem)]);
    },
  };
}

/**
 * graphql-js parses nested list and object literals by recursion: a literal nested a few thousand
 * levels deep (`[[[[…`), well under the size limit, overflows the stack before the token limit stops
 * the lexer, and the RangeError would be an internal error. It is the client's document: refused as a syntax error.
 * Installed after the token limit, whose parse it wraps.
 */
export function useParseDepthGuard(): Plugin {
  return {
    onParse({ parseFn, setParseFn }) {
      setParseFn((source, options) => {
        try {
          return parseFn(source, options);
        } catch (error) {
          if (error instanceof RangeError) throw new GraphQLError('Syntax Error: the document nests too deeply to parse.');
          throw error;
        }
      });
    },
  };
}
