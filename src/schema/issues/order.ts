import { z } from 'zod';
import type { Issue, Prisma } from '../../generated/prisma/client.js';
import { builder } from '../core/builder.js';
import { ValidationError } from '../core/errors.js';
import { isUuid } from '../core/uuid.js';
import { ISSUE_PRIORITIES, ISSUE_STATUSES } from './workflow.js';
import { isStorableText } from '../core/text.js';

export const ISSUE_SORT_FIELDS = ['CREATED_AT', 'UPDATED_AT', 'PRIORITY', 'STATUS', 'TITLE'] as const;
export type IssueSortField = (typeof ISSUE_SORT_FIELDS)[number];
type Direction = 'ASC' | 'DESC';

const IssueSortFieldEnum = builder.enumType('IssueSortField', {
  description: 'What the issue list is sorted by.',
  values: {
    CREATED_AT: { description: 'Creation time (default; newest first by default).' },
    UPDATED_AT: { description: 'Last change (most recent first by default).' },
    PRIORITY: {
      description:
        'Workflow order of issuePriorities: urgent first when ASC (the default); newest first within a priority.',
    },
    STATUS: {
      description:
        'Workflow order of issueStatuses: Backlog first when ASC (the default); newest first within a status.',
    },
    TITLE: { description: 'Title, in the database collation (A first by default).' },
  } satisfies Record<IssueSortField, unknown>,
});

const lowerList = (values: readonly string[]) => values.map((v) => v.toLowerCase()).join(', ');

/** The order argument of the issue list. (REST spells the values in lowercase, hence the messages.) */
export const IssueOrderArgs = z.strictObject({
  field: z.enum(ISSUE_SORT_FIELDS, { error: `must be one of: ${lowerList([...ISSUE_SORT_FIELDS].sort())}` }).nullish(),
  direction: z.enum(['ASC', 'DESC'], { error: 'must be one of: asc, desc' }).nullish(),
});

const SortDirectionEnum = builder.enumType('SortDirection', {
  description: 'Which end of the order comes first.',
  values: {
    ASC: { description: 'Ascending: oldest, first in the workflow, A first.' },
    DESC: { description: 'Descending: newest, last in the workflow, Z first.' },
  },
});

export const IssueOrderInput = builder.inputType('IssueOrder', {
  description:
    'How the issue list is sorted. Every order ends in the id (after newest first, for status and priority), so that pages never overlap.',
  fields: (t) => ({
    field: t.field({ type: IssueSortFieldEnum, required: false, description: 'Default CREATED_AT.' }),
    direction: t.field({
      type: SortDirectionEnum,
      required: false,
      description: 'Default DESC for CREATED_AT and UPDATED_AT, ASC for the others.',
    }),
  }),
});

type KeyName = 'createdAt' | 'updatedAt' | 'title' | 'status' | 'priority' | 'id';
export type SortKey = { name: KeyName; desc: boolean };
type KeyValue = Date | string;
export type SortableIssue = Pick<Issue, KeyName>;

const DEFAULT_DIRECTION: Record<IssueSortField, Direction> = {
  CREATED_AT: 'DESC',
  UPDATED_AT: 'DESC',
  PRIORITY: 'ASC',
  STATUS: 'ASC',
  TITLE: 'ASC',
};

/** Every order ends in a unique key, so that a position in it (a cursor) is exact. */
function keysFor(field: IssueSortField, desc: boolean): SortKey[] {
  const newestFirst: SortKey[] = [
    { name: 'createdAt', desc: true },
    { name: 'id', desc: true },
  ];
  switch (field) {
    case 'CREATED_AT':
      return [
        { name: 'createdAt', desc },
        { name: 'id', desc },
      ];
    case 'UPDATED_AT':
      return [
        { name: 'updatedAt', desc },
        { name: 'id', desc },
      ];
    case 'TITLE':
      return [
        { name: 'title', desc },
        { name: 'id', desc },
      ];
    case 'PRIORITY':
      return [{ name: 'priority', desc }, ...newestFirst];
    case 'STATUS':
      return [{ name: 'status', desc }, ...newestFirst];
  }
}

/** Statuses and priorities sort by their place in the workflow (joined from issue_statuses / issue_priorities). */
const WORKFLOW: Partial<Record<KeyName, readonly string[]>> = { status: ISSUE_STATUSES, priority: ISSUE_PRIORITIES };

function orderByKey({ name, desc }: SortKey): Prisma.IssueOrderByWithRelationInput {
  const direction = desc ? 'desc' : 'asc';
  if (name === 'status') return { statusInfo: { position: direction } };
  if (name === 'priority') return { priorityInfo: { position: direction } };
  return { [name]: direction };
}

/** A sort key with the cursor row's value in it: one term of a keyset condition. */
export interface SeekKey extends SortKey {
  value: KeyValue;
  /** For a status or priority: the values that come after this one in the key's direction. */
  workflowPast?: string[];
}

function seekKey(key: SortKey, value: KeyValue): SeekKey {
  const workflow = WORKFLOW[key.name];
  if (!workflow) return { ...key, value };
  const at = workflow.indexOf(value as string);
  return { ...key, value, workflowPast: key.desc ? workflow.slice(0, at) : workflow.slice(at + 1) };
}

/** Rows strictly after the key's value in its order. */
function pastValue(key: SeekKey): Prisma.IssueWhereInput {
  if (key.workflowPast) return { [key.name]: { in: key.workflowPast } };
  return { [key.name]: { [key.desc ? 'lt' : 'gt']: key.value } };
}

/** Keyset condition: after the cursor row in the order of `keys` (from IssueOrder.seek), ties broken key by key. */
export function keysetWhere(keys: SeekKey[]): Prisma.IssueWhereInput {
  return {
    OR: keys.map((key, i) => ({
      AND: [...keys.slice(0, i).map((k) => ({ [k.name]: k.value })), pastValue(key)],
    })),
  };
}

function parseValue(name: KeyName, raw: unknown): KeyValue | undefined {
  if (typeof raw !== 'string') return undefined;
  if (name === 'createdAt' || name === 'updatedAt') {
    const date = new Date(raw);
    return Number.isNaN(date.getTime()) ? undefined : date;
  }
  if (name === 'id') return isUuid(raw) ? raw : undefined;
  const workflow = WORKFLOW[name];
  if (workflow && !workflow.includes(raw)) return undefined;
  // A title the database could not compare with (a forged cursor) makes no cursor of ours.
  return isStorableText(raw) ? raw : undefined;
}

/**
 * One ordering of the issue list with its keyset pagination. A cursor carries the sort, the
 * direction and the row's values of every sort key, so the next page starts exactly after that
 * row's place, even when the row has since been changed or deleted.
 */
export class IssueOrder {
  readonly field: IssueSortField;
  readonly direction: Direction;
  private readonly keys: SortKey[];

  constructor(input?: { field?: IssueSortField | null; direction?: Direction | null } | null) {
    this.field = input?.field ?? 'CREATED_AT';
    this.direction = input?.direction ?? DEFAULT_DIRECTION[this.field];
    this.keys = keysFor(this.field, this.direction === 'DESC');
  }

  /** The sort keys in reading order; `reversed` for pages read backwards (`last` / `before`). */
  sortKeys(reversed = false): SortKey[] {
    return reversed ? this.keys.map((key) => ({ ...key, desc: !key.desc })) : this.keys;
  }

  /** Prisma orderBy of sortKeys. */
  orderBy(reversed = false): Prisma.IssueOrderByWithRelationInput[] {
    return this.sortKeys(reversed).map(orderByKey);
  }

  cursorOf(issue: SortableIssue): string {
    const values = this.keys.map(({ name }) => {
      const value = issue[name];
      return value instanceof Date ? value.toISOString() : value;
    });
    return Buffer.from(JSON.stringify([this.field, this.direction, ...values])).toString('base64url');
  }

  /**
   * The keyset terms of the rows after (or, for `before`, ahead of) the cursor, for keysetWhere
   * or the hand-written statement (src/schema/issues/list-sql.ts); a cursor not made by this
   * order is a ValidationError.
   */
  seek(cursor: string, side: 'after' | 'before'): SeekKey[] {
    const values = this.decode(cursor);
    if (!values) {
      throw new ValidationError([
        { field: side, message: 'is not a cursor of this list and order; start again without it' },
      ]);
    }
    return this.sortKeys(side === 'before').map((key, i) => seekKey(key, values[i]!));
  }

  private decode(cursor: string): KeyValue[] | undefined {
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    } catch {
      return undefined;
    }
    if (!Array.isArray(parsed) || parsed.length !== this.keys.length + 2) return undefined;
    const [field, direction, ...raw] = parsed as unknown[];
    if (field !== this.field || direction !== this.direction) return undefined;
    const values = this.keys.map(({ name }, i) => parseValue(name, raw[i]));
    return values.every((v) => v !== undefined) ? (values as KeyValue[]) : undefined;
  }
}
