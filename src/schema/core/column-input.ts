import type { z } from 'zod';
import { type ColumnDeclaration, type FieldOf, type TableDeclaration, writtenFieldsOf } from './column-declaration.js';

/**
 * The inputs of a table's create and update operations, from its written columns' declarations
 * (src/schema/core/column-declaration.ts): one rule per field, shared by create and update so
 * that both accept exactly the same values.
 */

type Written<Table extends TableDeclaration> = {
  [F in FieldOf<Table> as Table[F] extends { write: object } ? F : never]: Table[F];
};
type Updated<Table extends TableDeclaration> = {
  [F in FieldOf<Table> as Table[F] extends { write: { update: object } } ? F : never]: Table[F];
};
type RuleOf<Declared> = Declared extends { write: { rule: infer Rule extends z.ZodType } } ? Rule : never;

type CreateRule<Declared> = Declared extends { write: { create: { required: true } } }
  ? RuleOf<Declared>
  : Declared extends { write: { create: { default: string } } }
    ? z.ZodDefault<RuleOf<Declared>>
    : z.ZodOptional<z.ZodNullable<RuleOf<Declared>>>;
type UpdateRule<Declared> = Declared extends { nullable: true }
  ? z.ZodOptional<z.ZodNullable<RuleOf<Declared>>>
  : z.ZodOptional<RuleOf<Declared>>;

function createRule(declared: ColumnDeclaration): z.ZodType {
  const { rule, create } = declared.write!;
  if (create.required) return rule;
  if (create.default !== undefined) return rule.default(create.default as never);
  return rule.nullish();
}

/** Absent: stays as it is; null clears a nullable column and is refused for the others. */
function updateRule(declared: ColumnDeclaration): z.ZodType {
  const { rule } = declared.write!;
  return declared.nullable ? rule.nullable().optional() : rule.optional();
}

/** The create input's fields (a `z.strictObject`'s shape), in declaration order. */
export const createShape = <Table extends TableDeclaration>(table: Table) =>
  Object.fromEntries(writtenFieldsOf(table, 'create').map((name) => [name, createRule(table[name]!)])) as {
    [F in keyof Written<Table>]: CreateRule<Written<Table>[F]>;
  };

/** The update input's fields: absent fields stay as they are; null clears the nullable ones and is refused elsewhere. */
export const updateShape = <Table extends TableDeclaration>(table: Table) =>
  Object.fromEntries(writtenFieldsOf(table, 'update').map((name) => [name, updateRule(table[name]!)])) as {
    [F in keyof Updated<Table>]: UpdateRule<Updated<Table>[F]>;
  };
