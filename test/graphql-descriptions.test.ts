import {
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isIntrospectionType,
  isObjectType,
  isSpecifiedScalarType,
  isUnionType,
  type GraphQLSchema,
} from 'graphql';
import { describe, expect, test } from 'vitest';
import { schema } from '../src/schema/index.js';

/** Every type, field, argument and enum value of the schema that has no description. */
function undescribed(s: GraphQLSchema): string[] {
  const missing: string[] = [];
  const need = (what: string, description: string | null | undefined) => {
    if (!description?.trim()) missing.push(what);
  };
  for (const type of Object.values(s.getTypeMap())) {
    if (isIntrospectionType(type) || isSpecifiedScalarType(type)) continue;
    need(type.name, type.description);
    if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) {
        need(`${type.name}.${field.name}`, field.description);
        for (const arg of 'args' in field ? field.args : [])
          need(`${type.name}.${field.name}(${arg.name})`, arg.description);
      }
    }
    if (isEnumType(type)) for (const value of type.getValues()) need(`${type.name}.${value.name}`, value.description);
    if (isUnionType(type)) continue;
  }
  return missing;
}

describe('a self-describing schema', () => {
  test('every type, field, argument and enum value has a description', () => {
    expect(undescribed(schema)).toEqual([]);
  });
});
