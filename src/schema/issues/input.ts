import { z } from 'zod';
import type { Prisma } from '../../generated/prisma/client.js';
import { ValidationError } from '../core/errors.js';
import { CREATE_FIELDS, ISSUE_TABLE, UPDATE_FIELDS, type ColumnDeclaration, type IssueField } from './columns.js';

/**
 * The inputs of createIssue and updateIssue, from the written columns' declarations
 * (src/schema/issues/columns.ts): one rule per field, shared by create and update so that both
 * accept exactly the same values.
 */

type IssueTable = typeof ISSUE_TABLE;
type Written = { [F in IssueField as IssueTable[F] extends { write: object } ? F : never]: IssueTable[F] };
type Updated = { [F in keyof Written as Written[F] extends { write: { update: object } } ? F : never]: Written[F] };
type RuleOf<D> = D extends { write: { rule: infer Rule extends z.ZodType } } ? Rule : never;

type CreateRule<D> = D extends { write: { create: { required: true } } }
  ? RuleOf<D>
  : D extends { write: { create: { default: string } } }
    ? z.ZodDefault<RuleOf<D>>
    : z.ZodOptional<z.ZodNullable<RuleOf<D>>>;
type UpdateRule<D> = D extends { nullable: true } ? z.ZodOptional<z.ZodNullable<RuleOf<D>>> : z.ZodOptional<RuleOf<D>>;

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

const shape = <Rule>(names: readonly IssueField[], ruleOf: (declared: ColumnDeclaration) => z.ZodType) =>
  Object.fromEntries(names.map((name) => [name, ruleOf(ISSUE_TABLE[name])])) as Rule;

export const CreateIssue = z.strictObject(
  shape<{ [F in keyof Written]: CreateRule<Written[F]> }>(CREATE_FIELDS, createRule),
);

/** Absent fields stay as they are; null clears the nullable ones and is refused elsewhere. */
export const UpdateIssue = z.strictObject(
  shape<{ [F in keyof Updated]: UpdateRule<Updated[F]> }>(UPDATE_FIELDS, updateRule),
);

/** Only a member of the organization can be assigned an issue of it. */
export async function checkAssignee(
  db: Prisma.TransactionClient,
  orgId: string,
  assigneeId: string | null | undefined,
): Promise<void> {
  if (!assigneeId) return;
  const member = await db.membership.findUnique({
    where: { orgId_userId: { orgId, userId: assigneeId } },
    select: { id: true },
  });
  if (!member) throw new ValidationError([{ field: 'assigneeId', message: 'must be a member of the organization' }]);
}
