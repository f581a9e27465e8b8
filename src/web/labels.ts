import { roleAtLeast } from '../auth/principal.js';
import type { Context } from '../context.js';
import { Response } from '../http/fetch-api.js';
import type { Label } from '../generated/prisma/client.js';
import * as ops from '../schema/labels/operations.js';
import { redirect } from '../views/render.js';
import { flashCookie } from './flash.js';
import { formFailure, readForm } from './forms.js';
import { safeNextPath } from './next-path.js';
import { orgPage, orgView, type OrgPage, type PageRequest } from './org-page.js';

/**
 * Settings > Labels: every role reads the organization's labels; managers and above add, change
 * and delete them, through the same operations as the API. And the issue page's label form,
 * which replaces an issue's labels (members and above).
 */

/** The organization's labels, by name, as the pages show them (the issue list's filter, the issue page's form). */
export function labelsOf(p: OrgPage): Promise<Label[]> {
  return ops.listLabels.call(p.ctx, {}, {});
}

const EMPTY_FORM = { name: '', color: '#6b7280', description: '' };

async function labelsPage(p: OrgPage, extra: Record<string, unknown> = {}, status = 200): Promise<Response> {
  return orgView(
    p,
    'labels',
    {
      title: `Labels · ${p.org.name}`,
      section: 'Labels',
      canManage: roleAtLeast(p.org.role, 'manager'),
      labels: await labelsOf(p),
      formError: null,
      errors: {},
      form: EMPTY_FORM,
      ...extra,
    },
    { status },
  );
}

const backTo = (p: OrgPage, notice: string) =>
  redirect(`${p.base}/settings/labels`, { 'set-cookie': flashCookie(p.ctx.config, { notice }) });

export async function showLabels(request: PageRequest, ctx: Context): Promise<Response> {
  const p = await orgPage(request, ctx);
  if (p instanceof Response) return p;
  return labelsPage(p);
}

export async function createLabelFromPage(request: PageRequest, ctx: Context): Promise<Response> {
  const p = await orgPage(request, ctx);
  if (p instanceof Response) return p;
  const form = await readForm(request);
  const values = { name: form.name ?? '', color: form.color ?? '', description: form.description ?? '' };
  try {
    const label = await ops.createLabel.call(p.ctx, values, {});
    return backTo(p, `Label ${label.name} added.`);
  } catch (error) {
    const failure = formFailure(error);
    return labelsPage(p, { form: values, errors: failure.errors, formError: failure.formError }, failure.status);
  }
}

/** The form of one label: save its fields, or delete it. */
export async function labelAction(request: PageRequest, ctx: Context): Promise<Response> {
  const p = await orgPage(request, ctx);
  if (p instanceof Response) return p;
  const id = request.params?.id ?? '';
  const form = await readForm(request);
  try {
    if (form.action === 'delete') {
      await ops.deleteLabel.call(p.ctx, { id }, undefined);
      return backTo(p, 'The label has been deleted and taken off its issues.');
    }
    const values = { id, name: form.name ?? '', color: form.color ?? '', description: form.description ?? '' };
    const label = await ops.updateLabel.call(p.ctx, values, {});
    return backTo(p, `Label ${label.name} saved.`);
  } catch (error) {
    const failure = formFailure(error);
    const message =
      failure.formError ??
      Object.entries(failure.errors)
        .map(([field, text]) => `${field}: ${text}`)
        .join('; ');
    return labelsPage(p, { formError: message }, failure.status);
  }
}

/** POST /orgs/:slug/issues/:key/labels: the issue carries the labels checked, and the page shows it again. */
export async function setIssueLabelsFromPage(request: PageRequest, ctx: Context): Promise<Response> {
  const p = await orgPage(request, ctx);
  if (p instanceof Response) return p;
  const key = request.params?.key ?? '';
  const form = await request.formData().catch(() => new FormData());
  const back = safeNextPath(`${p.base}/issues/${key}`, ctx.config.baseUrl);
  try {
    await ops.setIssueLabels.call(
      p.ctx,
      { id: key, labels: form.getAll('labels').map(String) },
      { select: { id: true } },
    );
    return redirect(back, { 'set-cookie': flashCookie(ctx.config, { notice: `Labels of ${key} saved.` }) });
  } catch (error) {
    const failure = formFailure(error);
    const message = failure.formError ?? Object.values(failure.errors).join('; ');
    return redirect(back, { 'set-cookie': flashCookie(ctx.config, { notice: `Labels not saved: ${message}` }) });
  }
}
