import { describe, expect, test } from 'vitest';
import { page } from '../src/views/render.js';
import { ISSUE_PAGE, sentFields, type PageField } from '../src/web/issue-fields.js';

/**
 * The controls no declared issue field uses yet (a number, a line of text in the sidebar), so
 * that the first column declared with one shows and edits as the others do: the templates render
 * the issue page and the create form with made-up fields beside the declared ones, and the form's
 * text becomes the operation's input. The declared fields themselves: test/web-issue-page.test.ts.
 */

const made = (name: string, label: string, control: 'number' | 'text', update: boolean): PageField => ({
  name,
  field: name as PageField['field'],
  short: name,
  label,
  control,
  kind: control === 'number' ? 'int' : 'text',
  nullable: true,
  place: 'properties',
  values: [],
  create: { required: false },
  updatable: update,
  wide: control === 'text',
});
const estimate = made('estimate', 'Estimate', 'number', true);
const code = made('code', 'Code', 'text', true);
const points = made('points', 'Points', 'number', false);

const fields = {
  ...ISSUE_PAGE,
  changeable: [...ISSUE_PAGE.changeable, estimate, code],
  fixed: [...ISSUE_PAGE.fixed, points],
  create: [...ISSUE_PAGE.create, estimate],
};
const org = { id: 'o1', slug: 'acme', name: 'Acme', role: 'member' };
const issue = {
  id: 'i1',
  key: 'WEB-1',
  project_id: 'p1',
  title: 'A title',
  status: 'Todo',
  priority: 'high',
  description: null,
  assignee_id: null,
  estimate: 3,
  code: null,
  points: null,
  labels: [],
  created_at: '2026-01-02T03:04:05.000Z',
  updated_at: '2026-01-02T03:04:05.000Z',
};

async function render(view: string, data: Record<string, unknown>) {
  return page(view, {
    currentOrg: org,
    issue,
    issueFields: fields,
    projects: [{ id: 'p1', key: 'WEB', name: 'Website' }],
    members: [],
    names: {},
    activity: { entries: [], error: null, older: null },
    comments: { entries: [], error: null, newer: null },
    commentsAfter: null,
    comment: { failed: null, body: '', error: null },
    labels: [],
    form: { title: '', status: 'Backlog', priority: 'none', estimate: '' },
    errors: {},
    propertyErrors: {},
    here: '/orgs/acme/issues',
    ...data,
  }).text();
}

describe('controls of fields to come', () => {
  test('a number and a line of text in the sidebar: a form each, with the value, the none, the error', async () => {
    const html = await render('issue', { canEdit: true, propertyErrors: { estimate: 'must be an integer' } });
    expect(html).toContain(
      '<input id="p-estimate" name="estimate" type="number" step="1" value="3" aria-invalid="true" aria-describedby="p-estimate-error">',
    );
    expect(html).toContain('<p class="field-error" id="p-estimate-error" data-property-error>must be an integer</p>');
    expect(html).toContain('<input id="p-code" name="code" type="text" value="">');
    expect(html).toContain(
      '<form method="post" action="/orgs/acme/issues/WEB-1/properties" class="property" id="property-code" data-property>',
    );
    // Fixed once created: a line of the list, "—" for none.
    expect(html).toContain('<div><dt>Points</dt><dd>—</dd></div>');
  });

  test("a viewer reads them: the number as it is, none as '—'", async () => {
    const html = await render('issue', { canEdit: false });
    expect(html).toContain('<div><dt>Estimate</dt><dd>3</dd></div>');
    expect(html).toContain('<div><dt>Code</dt><dd>—</dd></div>');
    expect(html).not.toContain('id="p-estimate"');
  });

  test('the create form: a number, optional, with its error', async () => {
    const html = await render('issue-create', { canEdit: true, errors: { estimate: 'must be at least 0' } });
    expect(html).toContain('<label for="new-estimate">Estimate <span class="muted">(optional)</span></label>');
    expect(html).toContain(
      '<input id="new-estimate" name="estimate" type="number" step="1" value="" aria-invalid="true" aria-describedby="new-estimate-error">',
    );
    expect(html).toContain('<p class="field-error" id="new-estimate-error">must be at least 0</p>');
  });

  test("a form's text as the operation's input: an integer as a number, empty as none, anything else for the operation to refuse", () => {
    expect(sentFields({ estimate: '12', code: 'x' }, [estimate, code])).toEqual({ estimate: 12, code: 'x' });
    expect(sentFields({ estimate: '', code: '' }, [estimate, code])).toEqual({ estimate: null, code: null });
    expect(sentFields({ estimate: '1.5' }, [estimate, code])).toEqual({ estimate: '1.5' });
    expect(sentFields({ estimate: '-3' }, [estimate])).toEqual({ estimate: -3 });
  });
});
