import { z } from 'zod';
import type { DB } from '../../generated/kysely/types.js';
import type { Label } from '../../generated/prisma/client.js';
import { type ColumnDeclaration, fieldsOf, loadedColumnsOf } from '../core/column-declaration.js';
import { EX } from '../core/example-values.js';
import { notNull } from '../core/messages.js';
import { text, time, uuid } from '../core/representation.js';
import { storableString } from '../core/text.js';

/**
 * The columns of the labels table, each declared once (src/schema/core/column-declaration.ts):
 * the Label object's base selection and plain fields (src/schema/labels/label.ts), the REST JSON
 * and its OpenAPI schema (src/schema/labels/representation.ts) and the inputs of createLabel and
 * updateLabel (src/schema/labels/operations.ts) follow from it.
 */

export const LABEL_NAME_MAX = 50;
const LABEL_DESCRIPTION_MAX = 200;
/** `#rrggbb`; any case is taken, lowercase is stored. */
const COLOR_PATTERN = /^#[0-9a-fA-F]{6}$/;

type LabelColumnDeclaration = ColumnDeclaration<keyof DB['labels'] & string, 'uuid' | 'text' | 'time'>;

export const LABEL_TABLE = {
  id: {
    column: 'id',
    kind: 'uuid',
    nullable: false,
    loaded: true,
    json: { name: 'id', schema: uuid('The label id.'), example: EX.labelId },
    graphql: { description: 'The label id.' },
  },
  orgId: { column: 'org_id', kind: 'uuid', nullable: false, loaded: false },
  name: {
    column: 'name',
    kind: 'text',
    nullable: false,
    loaded: true,
    json: {
      name: 'name',
      schema: text(
        LABEL_NAME_MAX,
        `1 to ${LABEL_NAME_MAX} characters, no comma; unique in the organization, whatever the case.`,
      ),
      example: 'bug',
    },
    graphql: { description: 'Its name, unique in the organization whatever the case.' },
    write: {
      // No comma: the list filter takes names separated by commas (`label=bug,ui`).
      rule: storableString(notNull('must be a string'))
        .trim()
        .min(1, 'must not be empty')
        .max(LABEL_NAME_MAX, `must be at most ${LABEL_NAME_MAX} characters`)
        .refine((name) => !name.includes(','), 'must not contain a comma'),
      create: {
        required: true,
        description: `1 to ${LABEL_NAME_MAX} characters, no comma; unique in the organization, whatever the case.`,
      },
      update: { description: `A new name, 1 to ${LABEL_NAME_MAX} characters, no comma.` },
    },
  },
  // The name lowercased, which the unique index holds; never shown.
  nameKey: { column: 'name_key', kind: 'text', nullable: false, loaded: false },
  color: {
    column: 'color',
    kind: 'text',
    nullable: false,
    loaded: true,
    json: {
      name: 'color',
      schema: z
        .string()
        .regex(/^#[0-9a-f]{6}$/)
        .meta({ description: '`#rrggbb`, lowercase.', maxLength: 7 }),
      example: '#d73a4a',
    },
    graphql: { description: 'Its color: `#rrggbb`, lowercase.' },
    write: {
      rule: z
        .string(notNull('must be a string'))
        .regex(COLOR_PATTERN, 'must be a color written #rrggbb')
        .toLowerCase()
        .meta({ maxLength: 7 }),
      create: { required: true, description: 'A color written `#rrggbb` (stored lowercase).' },
      update: { description: 'A new color, `#rrggbb`.' },
    },
  },
  description: {
    column: 'description',
    kind: 'text',
    nullable: false,
    loaded: false,
    json: {
      name: 'description',
      schema: text(LABEL_DESCRIPTION_MAX, `At most ${LABEL_DESCRIPTION_MAX} characters; empty: none.`),
      example: 'Something does not work as it should.',
    },
    graphql: { description: 'What the label means; empty when none.', textCost: LABEL_DESCRIPTION_MAX },
    write: {
      rule: storableString(notNull('must be a string'))
        .trim()
        .max(LABEL_DESCRIPTION_MAX, `must be at most ${LABEL_DESCRIPTION_MAX} characters`),
      create: { default: '', description: `At most ${LABEL_DESCRIPTION_MAX} characters; default empty.` },
      update: { description: `A new description, at most ${LABEL_DESCRIPTION_MAX} characters.` },
    },
  },
  createdAt: {
    column: 'created_at',
    kind: 'time',
    nullable: false,
    loaded: false,
    json: { name: 'created_at', schema: time('Creation time (ISO 8601, UTC).'), example: EX.created },
    graphql: { description: 'When it was created.' },
  },
  updatedAt: {
    column: 'updated_at',
    kind: 'time',
    nullable: false,
    loaded: false,
    json: { name: 'updated_at', schema: time('Last change (ISO 8601, UTC).'), example: EX.updated },
    graphql: { description: 'When it last changed.' },
  },
} as const satisfies { [Field in keyof Label]: LabelColumnDeclaration };

/** The label fields in declaration order. */
export const LABEL_FIELD_NAMES = fieldsOf(LABEL_TABLE);

/** The columns every Label row is loaded with, as a Prisma selection: what an issue shows of its labels. */
export const LABEL_COLUMNS = loadedColumnsOf(LABEL_TABLE);

/** The key names are unique by: the name lowercased. */
export const nameKeyOf = (name: string) => name.toLowerCase();
