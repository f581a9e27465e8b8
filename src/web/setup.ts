import type { FirstRunLink } from '../auth/first-run.js';
import { hashPassword } from '../auth/password.js';
import { passwordProblem, PASSWORD_MIN_LENGTH } from '../auth/password-setup.js';
import { sessionCookie, startSession } from '../auth/session.js';
import type { Context } from '../context.js';
import { Prisma } from '../generated/prisma/client.js';
import { NewAccount } from '../schema/people/account.js';
import { ConflictError, ValidationError, type FieldError } from '../schema/core/errors.js';
import { createOrganization } from '../schema/organizations/organization.js';
import { createProject } from '../schema/projects/operations.js';
import { formFailure, readForm } from './forms.js';
import { notFoundPage } from './org-page.js';
import { page, redirect } from '../views/render.js';

/**
 * GET/POST /setup?token=...: the first-run page of an empty database. It creates the first
 * owner, their organization and a first project in one transaction, signs them in and sends
 * them to the dashboard. Without the printed token, once it is spent, or once any user exists,
 * it is the 404 page. Its fields are checked by the operations' own rules (NewAccount,
 * createOrganization, createProject) and every mistake is shown at once.
 */

// The token is in the URL: Referer carries only the origin (as on /set-password).
const NO_REFERRER = { 'referrer-policy': 'strict-origin' };

const EMPTY = { name: '', email: '', username: '', org_name: '', org_slug: '', project_name: '', project_key: '' };
type SetupForm = typeof EMPTY;

function setupPage(
  token: string,
  form: SetupForm,
  errors: Record<string, string> = {},
  formError: string | null = null,
  status = 200,
): Response {
  return page(
    'setup',
    { title: 'Set up workmgmt', token, form, errors, formError, minLength: PASSWORD_MIN_LENGTH },
    { status, headers: NO_REFERRER },
  );
}

/** Every mistake of the form at once, under the form's own field names. */
function check(form: Record<string, string>) {
  const errors: FieldError[] = [];
  const at = (prefix: Record<string, string>) => (e: FieldError) =>
    errors.push({ field: prefix[e.field] ?? e.field, message: e.message });
  const account = NewAccount.safeParse({ name: form.name, email: form.email, username: form.username });
  const org = createOrganization.input.safeParse({ name: form.org_name, slug: form.org_slug });
  const project = createProject.input.safeParse({ name: form.project_name, key: form.project_key });
  for (const [result, names] of [
    [account, {}],
    [org, { name: 'org_name', slug: 'org_slug' }],
    [project, { name: 'project_name', key: 'project_key' }],
  ] as const) {
    if (result.success) continue;
    for (const i of result.error.issues) at(names)({ field: i.path.join('.'), message: i.message });
  }
  const problem = passwordProblem(form.password ?? '', form.confirmation ?? '');
  if (problem) errors.push({ field: 'password', message: problem });
  if (errors.length || !account.success || !org.success || !project.success) throw new ValidationError(errors);
  return { account: account.data, org: org.data, project: project.data };
}

export function createSetupPages(firstRun: FirstRunLink | null) {
  async function open(ctx: Context, token: string): Promise<boolean> {
    if (!firstRun?.matches(token)) return false;
    if ((await ctx.prisma.user.count()) === 0) return true;
    firstRun.close();
    return false;
  }

  async function showSetup(request: Request, ctx: Context): Promise<Response> {
    const token = new URL(request.url).searchParams.get('token') ?? '';
    if (!(await open(ctx, token))) return notFoundPage();
    return setupPage(token, EMPTY);
  }

  async function submitSetup(request: Request, ctx: Context): Promise<Response> {
    const form = await readForm(request);
    const token = form.token ?? '';
    if (!(await open(ctx, token))) return notFoundPage();
    const shown: SetupForm = Object.fromEntries(Object.keys(EMPTY).map((k) => [k, form[k] ?? ''])) as SetupForm;
    const claim = firstRun!.claim(token);
    if (!claim) return notFoundPage();
    try {
      const input = check(form);
      const passwordHash = await hashPassword(form.password!);
      const userId = await ctx.prisma.$transaction(async (tx) => {
        // Another way in (the admin CLI) may have created a user since the page was opened.
        if ((await tx.user.count()) > 0) throw new ConflictError('The service is already set up.');
        const user = await tx.user.create({ data: { ...input.account, passwordHash }, select: { id: true } });
        const org = await tx.organization.create({ data: input.org, select: { id: true } });
        await tx.membership.create({ data: { orgId: org.id, userId: user.id, role: 'owner' } });
        await tx.project.create({ data: { orgId: org.id, ...input.project }, select: { id: true } });
        return user.id;
      });
      const { token: sessionToken, session } = await startSession(ctx.prisma, userId);
      return redirect(`/orgs/${input.org.slug}`, {
        'set-cookie': sessionCookie(ctx.config, sessionToken, session.expiresAt, session.createdAt),
      });
    } catch (error) {
      claim.undo();
      if (error instanceof ConflictError) {
        firstRun!.close();
        return notFoundPage();
      }
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') {
        return setupPage(token, shown, {}, 'That email, username or organization slug is already taken.', 409);
      }
      const failure = formFailure(error);
      return setupPage(token, shown, failure.errors, failure.formError, failure.status);
    }
  }

  return { showSetup, submitSetup };
}
