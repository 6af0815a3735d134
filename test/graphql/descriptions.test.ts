import { isEnumType, isInputObjectType, isInterfaceType, isObjectType, isScalarType, isSpecifiedScalarType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql/schema.js';
import { requiredScope } from '../../src/graphql/field-scope.js';

// schema.graphql is the frontend's reference: every type, field, argument and enum value is
// described, and each root field's description names the scope its scope-auth rule requires.

describe('schema descriptions', () => {
  it('every type, field, argument, input field and enum value has a description', () => {
    const missing: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (type.name.startsWith('__') || (isScalarType(type) && isSpecifiedScalarType(type))) continue;
      if (!type.description?.trim()) missing.push(`type ${type.name}`);
      if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) {
        for (const field of Object.values(type.getFields())) {
          if (!field.description?.trim()) missing.push(`${type.name}.${field.name}`);
          for (const arg of 'args' in field ? field.args : []) if (!arg.description?.trim()) missing.push(`${type.name}.${field.name}(${arg.name})`);
        }
      }
      if (isEnumType(type)) for (const value of type.getValues()) if (!value.description?.trim()) missing.push(`${type.name}.${value.name}`);
    }
    expect(missing).toEqual([]);
  });

  it('every root field that needs a scope says which in its description', () => {
    const roots = [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()];
    const wrong: string[] = [];
    let scoped = 0;
    for (const root of roots) {
      for (const field of Object.values(root?.getFields() ?? {})) {
        const scope = requiredScope(field);
        if (!scope) continue;
        scoped += 1;
        if (!field.description?.includes(scope)) wrong.push(`${root!.name}.${field.name} needs ${scope}: "${field.description}"`);
      }
    }
    expect(scoped).toBeGreaterThan(30);
    expect(wrong).toEqual([]);
  });
});
