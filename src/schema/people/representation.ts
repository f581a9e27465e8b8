import { z } from 'zod';
import type { User } from '../../generated/prisma/client.js';
import { ISSUE_KEY_MAX } from '../issues/representation.js';
import { RoleSchema } from '../organizations/representation.js';
import type { PaletteHitShape } from './palette.js';
import { EMAIL_VISIBLE_FROM } from './person.js';
import { PROJECT_KEY_MAX, PROJECT_NAME_MAX } from '../projects/fields.js';
import { column, representation, text, uuid } from '../core/representation.js';
import { EMAIL_MAX, USER_NAME_MAX, USERNAME_MAX } from './fields.js';
import { jsonExampleOf, jsonFieldsOf, type JsonShape } from '../core/column-json.js';
import { USER_TABLE } from './columns.js';
import { TITLE_MAX } from '../issues/workflow.js';

/** People as REST answers them: the signed-in user, the organization's members, the command palette's hits. */

/** The signed-in user: the fields of the column declaration that have a `json` entry (src/schema/people/columns.ts). */
export const UserJson = representation<User>('User', 'The signed-in user.', jsonFieldsOf<User>(USER_TABLE));

/** The example user of the API reference, from the declared examples. */
export const USER_EXAMPLE = jsonExampleOf(USER_TABLE) as JsonShape<typeof USER_TABLE>;

interface PersonRow {
  id: string;
  name: string;
  username: string;
  role: string;
  email: string | null;
}
/** The user's columns a person shows, as the signed-in user shows them. */
const userFields = jsonFieldsOf<PersonRow>(USER_TABLE);

export const PersonJson = representation<PersonRow>(
  'Person',
  `A member of the organization. \`email\` is present only for callers whose role is ${EMAIL_VISIBLE_FROM} or above.`,
  {
    id: column('id', uuid('The user id (what `assignee_id` holds).')),
    name: userFields.name!,
    username: userFields.username!,
    role: column('role', RoleSchema),
    email: {
      ...column(
        'email',
        z
          .email()
          .max(EMAIL_MAX)
          .meta({ description: `Only for the roles ${EMAIL_VISIBLE_FROM} and above.` }),
      ),
      omitNull: true,
    },
  },
);

const paletteHit = representation<PaletteHitShape>(
  'PaletteHit',
  'A command-palette hit: enough to show it and to open it.',
  {
    type: {
      schema: z.enum(['project', 'issue', 'person']).meta({ description: 'What the hit is.' }),
      value: (hit) => hit.type.toLowerCase(),
    },
    id: column('id', uuid('The project, issue or user id.')),
    title: column(
      'title',
      text(
        Math.max(PROJECT_NAME_MAX, TITLE_MAX, USER_NAME_MAX),
        "The project's name, the issue's title or the person's name.",
      ),
    ),
    key: {
      ...column('key', text(ISSUE_KEY_MAX, 'The project key (`WEB`) or the issue key (`WEB-12`).')),
      omitNull: true,
    },
    project_id: { ...column('projectId', uuid("An issue's project.")), omitNull: true },
    username: { ...column('username', text(USERNAME_MAX, "A person's username.")), omitNull: true },
  },
);

const TITLE_MAX_OF: Record<string, number> = { project: PROJECT_NAME_MAX, issue: TITLE_MAX, person: USER_NAME_MAX };

// Each type of hit has exactly its own fields: the document says which, one object per type.
const hitOf = (type: string, title: string, fields: Record<string, z.ZodType>) =>
  z
    .strictObject({
      type: z.literal(type),
      id: uuid(`The ${type === 'person' ? 'user' : type} id.`),
      title: text(TITLE_MAX_OF[type]!, title),
      ...fields,
    })
    .meta({ id: `Palette${type[0]!.toUpperCase()}${type.slice(1)}Hit` });

export const PaletteHitJson = {
  ...paletteHit,
  schema: z
    .discriminatedUnion('type', [
      hitOf('project', "The project's name.", { key: text(PROJECT_KEY_MAX, 'The project key (`WEB`).') }),
      hitOf('issue', "The issue's title.", {
        key: text(ISSUE_KEY_MAX, 'The issue key (`WEB-12`).'),
        project_id: uuid("The issue's project."),
      }),
      hitOf('person', "The person's name.", { username: text(USERNAME_MAX) }),
    ])
    .meta({
      id: 'PaletteHit',
      description: 'A command-palette hit: enough to show it and to open it. The fields depend on `type`.',
    }),
};
