import { BREAK, getNamedType, isScalarType, Kind, TypeInfo, visit, visitWithTypeInfo, type ASTNode, type DocumentNode, type GraphQLSchema } from 'graphql';

const VARIABLE_FREE_KINDS: ReadonlySet<ASTNode['kind']> = new Set([Kind.OBJECT, Kind.LIST, Kind.STRING, Kind.INT, Kind.FLOAT, Kind.BOOLEAN, Kind.NULL, Kind.ENUM]);

/**
 * A literal written for a scalar whose parseLiteral reads variables (JSON: `{ mon: $hours }`).
 * graphql-jit 0.8.7 parses such literals once, at compile time, with no variables: a variable
 * inside one was dropped without an error. Such documents run on graphql-js, which passes them.
 */
export function hasVariableScalarLiterals(schema: GraphQLSchema, document: DocumentNode): boolean {
  const typeInfo = new TypeInfo(schema);
  let found = false;
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      enter(node) {
        if (!VARIABLE_FREE_KINDS.has(node.kind)) return undefined;
        const type = typeInfo.getInputType();
        const named = type ? getNamedType(type) : undefined;
        if (!named || !isScalarType(named)) return undefined;
        if (named.parseLiteral.length > 1) {
          found = true;
          return BREAK;
        }
        // The scalar parses the whole literal itself: nothing inside it has a type of its own.
        return false;
      },
    }),
  );
  return found;
}
