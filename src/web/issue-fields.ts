import {
  ISSUE_FIELD_NAMES,
  ISSUE_TABLE,
  type IssueColumnDeclaration,
  type ColumnKind,
  type IssueField,
} from '../schema/issues/columns.js';
import { ISSUE_PRIORITIES, ISSUE_STATUSES } from '../schema/issues/workflow.js';

/**
 * The issue's fields as the pages show and edit them, from the `page` entries of the column
 * declaration (src/schema/issues/columns.ts): the issue page's heading, body and sidebar, its edit
 * form and sidebar forms, and the create form. A declared column that pages show and the API writes
 * appears in all of them with no change here or in the templates.
 */

type Control = NonNullable<IssueColumnDeclaration['page']>['control'];

export interface PageField {
  /** The JSON field the page reads and the form input that sends it (`assignee_id`). */
  name: string;
  /** The operation's input field (`assigneeId`), which also names its errors. */
  field: IssueField;
  /** The name without `_id`, for the create form's element ids (`new-assignee`). */
  short: string;
  label: string;
  control: Control;
  kind: ColumnKind;
  nullable: boolean;
  /** Where the issue page shows it: its heading, its body section, or the sidebar. */
  place: 'heading' | 'body' | 'properties';
  /** A select's values: those of its kind. */
  values: readonly string[];
  /** On create: required, or the default a left-out field takes (neither: optional, empty is none); absent: not written on create. */
  create?: { required: boolean; default?: string };
  /** Changed by updateIssue (absent: fixed once created). */
  updatable: boolean;
  /** The wide controls (text) take a form's whole row. */
  wide: boolean;
}

/** The values a select offers, by the column's kind. */
const KIND_VALUES: Partial<Record<ColumnKind, readonly string[]>> = {
  status: ISSUE_STATUSES,
  priority: ISSUE_PRIORITIES,
};

const shown = ISSUE_FIELD_NAMES.flatMap((field): PageField[] => {
  const declared: IssueColumnDeclaration = ISSUE_TABLE[field];
  if (!declared.page) return [];
  if (!declared.json) throw new Error(`The issue field ${field} has a page entry but no JSON field for pages to read.`);
  const { name } = declared.json;
  const { label, control, place = 'properties' } = declared.page;
  const values = control === 'select' ? KIND_VALUES[declared.kind] : [];
  if (!values) throw new Error(`The issue field ${field} is a select, but its kind ${declared.kind} has no values.`);
  const { write } = declared;
  return [
    {
      name,
      field,
      short: name.replace(/_id$/, ''),
      label,
      control,
      kind: declared.kind,
      nullable: declared.nullable,
      place,
      values,
      create: write && { required: write.create.required === true, default: write.create.default },
      updatable: Boolean(write?.update),
      wide: control === 'text' || control === 'markdown',
    },
  ];
});

/** The one field of a place of the issue page; its template has room for one, of one control. */
function onlyOne(place: 'heading' | 'body', control: Control): PageField {
  const [found, ...more] = shown.filter((f) => f.place === place);
  if (!found || more.length || found.control !== control) {
    throw new Error(`The issue page has one ${place}, a ${control} field: its declaration says otherwise.`);
  }
  return found;
}
const heading = onlyOne('heading', 'text');
const body = onlyOne('body', 'markdown');
const properties = shown.filter((f) => f.place === 'properties');

/** What the templates lay out (issue.eta, issue-create.eta), each list in declaration order. */
export const ISSUE_PAGE = {
  heading,
  body,
  /** The sidebar's properties that change, each with a form of its own (a list for viewers). */
  changeable: properties.filter((f) => f.updatable),
  /** The sidebar's properties fixed once created. */
  fixed: properties.filter((f) => !f.updatable),
  /** The edit form: the heading and the body. */
  edit: [heading, body].filter((f) => f.updatable),
  /** The create form; the body last, under the rest, as wide as the form. */
  create: [...shown.filter((f) => f.create && f !== body), ...(body.create ? [body] : [])],
};

const byField = new Map(shown.map((f) => [f.field as string, f]));
/** The page field of an operation's field name (`assigneeId`), as history records it; none for a field pages do not show. */
export const pageFieldOf = (field: string): PageField | undefined => byField.get(field);

type Form = Record<string, string>;

/** A form's text as the operation takes it: an integer as a number (other text goes on, for the operation to refuse). */
const inputOf = (f: PageField, text: string) => (f.control === 'number' && /^-?\d+$/.test(text) ? Number(text) : text);

/** The empty create form: the declared defaults, and the project when the page is about one. */
export const newIssueForm = (projectId = ''): Form =>
  Object.fromEntries(
    ISSUE_PAGE.create.map((f) => [f.name, f.control === 'project' ? projectId : (f.create?.default ?? '')]),
  );

/** The create form as createIssue's input: an empty default is "not given", an empty optional field "none". */
export function createInput(form: Form): Record<string, unknown> {
  return Object.fromEntries(
    ISSUE_PAGE.create.map((f) => {
      const text = form[f.name];
      if (f.create?.required) return [f.field, inputOf(f, text ?? '')];
      if (f.create?.default !== undefined) return [f.field, text ? inputOf(f, text) : undefined];
      return [f.field, text ? inputOf(f, text) : null];
    }),
  );
}

/**
 * The fields of `fields` a form sends, as updateIssue's input: a field left out stays as it is; an
 * empty nullable one clears it (the others have no empty value, and the operation says so).
 */
export function sentFields(form: Form, fields: readonly PageField[]): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const f of fields) {
    const text = form[f.name];
    if (text === undefined) continue;
    input[f.field] = f.nullable && text === '' ? null : inputOf(f, text);
  }
  return input;
}

/** The edit form's values for an issue as it is (none is empty). */
export const editForm = (issue: Record<string, unknown>): Form =>
  Object.fromEntries(ISSUE_PAGE.edit.map((f) => [f.name, issue[f.name] == null ? '' : String(issue[f.name])]));
