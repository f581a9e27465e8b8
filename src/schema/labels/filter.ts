import { sql, type SqlBool } from 'kysely';
import { z } from 'zod';
import { oneOf } from '../../db/sql-conditions.js';
import type { FilterField } from '../issues/filter-fields.js';
import { MAX_FILTER_VALUES } from '../issues/filter-limits.js';
import { issueColumn } from '../issues/select.js';
import { storableString } from '../core/text.js';
import { LABEL_NAME_MAX, nameKeyOf } from './columns.js';

/**
 * The issue filter's label entry (src/schema/issues/filter.ts): issues carrying any of these
 * labels, named as people name them (any case). A name no label has matches nothing.
 */
export function anyLabel(description: string, restDescription: string): FilterField<string[]> {
  return {
    rule: z
      .array(
        storableString()
          .trim()
          .min(1, 'must not be empty')
          .max(LABEL_NAME_MAX, `must be at most ${LABEL_NAME_MAX} characters`),
      )
      .max(MAX_FILTER_VALUES, `must have at most ${MAX_FILTER_VALUES} values`),
    graphql: (t) => t.stringList({ required: false, description }),
    where: (names) => [{ labels: { some: { label: { nameKey: { in: names.map(nameKeyOf) } } } } }],
    // The issue's labels are of its organization (issue_labels' composite references), so the names need no org.
    sql: (names, alias) => [
      sql<SqlBool>`EXISTS (SELECT 1 FROM issue_labels il JOIN labels l ON l.id = il.label_id WHERE il.issue_id = ${issueColumn(alias, 'id')} AND ${oneOf(sql.ref('l.name_key'), names.map(nameKeyOf))})`,
    ],
    // The issue's id: no column the database's counts hold, so the aggregates count the issues themselves.
    reads: ['id'],
    rest: { name: 'label', description: restDescription, list: true },
  };
}
