import { z } from 'zod';
import { AuthError } from '../../auth/auth-error.js';
import type { Context } from '../../context.js';
import { ROUTE_POLICIES } from '../../limits/policy.js';
import type { LiveEvent } from '../../live/live-updates.js';
import { builder } from './builder.js';
import { ForbiddenError, NotFoundError, TooManyStreamsError } from './errors.js';
import { fixedList } from './list-bounds.js';
import { defineOperation } from './operation.js';
import { credentialSubject } from './rate-limit.js';
import { optionalProjectIdOf, projectRef } from '../projects/lookup.js';
import { activeOrgId } from '../people/viewer.js';

/**
 * Live updates: GraphQL subscriptions (over SSE, yoga's built-in transport) to the changes of
 * the caller's organization, as recorded by the events work and published after they commit.
 *
 * The subscriber's credential is checked again before each event and every
 * SUBSCRIPTION_RECHECK_MS: a member removed from the organization, or a key revoked or expired,
 * ends the subscription with a FORBIDDEN error instead of receiving the change, whether or not
 * changes come. Each start draws from the `subscriptions.start` bucket, and each open stream
 * holds one of its credential's and its organization's slots (TOO_MANY_STREAMS, 429, beyond).
 */
const watchChanges = defineOperation({
  name: 'watchChanges',
  description: "Changes of the caller's organization from now on (of one project's issues when projectId is given).",
  kind: 'read',
  access: { role: 'viewer' },
  rateLimit: { policy: ROUTE_POLICIES.subscriptionStart },
  input: z.strictObject({ projectId: projectRef.nullish(), subject: z.enum(['issue', 'project']) }),
  async run(ctx, { projectId: given, subject }): Promise<AsyncIterable<LiveEvent>> {
    const orgId = activeOrgId(ctx);
    if (!ctx.liveUpdates) throw new ForbiddenError('Live updates are served through the API only.');
    const projectId = await optionalProjectIdOf(ctx.prisma, orgId, given);
    if (projectId && !(await ctx.prisma.project.findFirst({ where: { id: projectId, orgId }, select: { id: true } })))
      throw new NotFoundError('project');
    const stream = ctx.liveUpdates.open(credentialSubject(ctx), orgId, {
      accept: (event) => ofSubject(event, subject) && (!projectId || event.projectId === projectId),
      check: () => stillAllowed(ctx, orgId),
    });
    if ('scope' in stream) throw new TooManyStreamsError(stream.scope, stream.limit);
    return stream;
  },
});

/** An issue's subscribers hear its comments' events too (their subject is the issue: src/schema/comments/events.ts). */
const isCommentEvent = (event: LiveEvent) => event.type.startsWith('comment.');
const ofSubject = (event: LiveEvent, subject: 'issue' | 'project') =>
  event.type.startsWith(`${subject}.`) || (subject === 'issue' && isCommentEvent(event));

/** Authenticates the subscriber again; the fresh principal (its current role) reads the changed object. */
async function stillAllowed(ctx: Context, orgId: string): Promise<void> {
  if (!ctx.reauthenticate) return;
  const now = await ctx.reauthenticate();
  if (now instanceof AuthError || now.kind !== 'user' || now.org?.id !== orgId) {
    throw new ForbiddenError(
      'This subscription has ended: its credential no longer gives access to the organization (revoked, expired, or no longer a member).',
    );
  }
  ctx.principal = now;
}

const ChangeKind = builder.enumType('ChangeKind', {
  description: 'What happened to the object.',
  values: {
    CREATED: { value: 'created', description: 'It was created.' },
    UPDATED: { value: 'updated', description: 'Some of its fields changed.' },
    DELETED: { value: 'deleted', description: 'It was deleted.' },
  } as const,
});

/** An event names at most the fields of its object (an issue has fewer than this many). */
const CHANGED_FIELDS_MAX = 20;

// A comment added, edited or deleted changes its issue's `comments`.
const kindOf = (event: LiveEvent) =>
  isCommentEvent(event)
    ? 'updated'
    : (event.type.slice(event.type.indexOf('.') + 1) as 'created' | 'updated' | 'deleted');

/** The fields every change has beside its object: what happened's details. */
type BuilderTypes = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer Types> ? Types : never;
const changeFields = (t: PothosSchemaTypes.ObjectFieldBuilder<BuilderTypes, LiveEvent>) => ({
  fields: t.stringList({
    description: 'The fields that changed (every field set, for a creation).',
    complexity: fixedList(CHANGED_FIELDS_MAX),
    resolve: (event) => (isCommentEvent(event) ? ['comments'] : event.fields),
  }),
  changedAt: t.field({
    type: 'DateTime',
    description: 'When the change was committed.',
    resolve: (event) => new Date(event.at),
  }),
});

const IssueChange = builder.objectRef<LiveEvent>('IssueChange').implement({
  description:
    'An issue of the organization was created, changed or deleted; a comment added, edited or deleted on it is an UPDATED change of its `comments`.',
  fields: (t) => ({
    kind: t.field({ type: ChangeKind, description: 'What happened.', resolve: kindOf }),
    issueId: t.id({ description: 'The issue.', resolve: (event) => event.subjectId }),
    projectId: t.id({ description: "The issue's project.", resolve: (event) => event.projectId }),
    ...changeFields(t),
    issue: t.prismaField({
      type: 'Issue',
      nullable: true,
      description: "The issue as it is now, read with the subscriber's rights; null once deleted.",
      resolve: (query, event, _args, ctx) =>
        ctx.prisma.issue.findFirst({ ...query, where: { id: event.subjectId, orgId: activeOrgId(ctx) } }),
    }),
  }),
});

const ProjectChange = builder.objectRef<LiveEvent>('ProjectChange').implement({
  description: 'A project of the organization was created, changed or deleted.',
  fields: (t) => ({
    kind: t.field({ type: ChangeKind, description: 'What happened.', resolve: kindOf }),
    projectId: t.id({ description: 'The project.', resolve: (event) => event.subjectId }),
    ...changeFields(t),
    project: t.prismaField({
      type: 'Project',
      nullable: true,
      description: 'The project as it is now; null once deleted.',
      resolve: (query, event, _args, ctx) =>
        ctx.prisma.project.findFirst({ ...query, where: { id: event.subjectId, orgId: activeOrgId(ctx) } }),
    }),
  }),
});

builder.subscriptionType({
  description: 'Live updates, over Server-Sent Events (Accept: text/event-stream).',
  authScopes: { tokenScope: 'read' },
});

builder.subscriptionField('issueChanged', (t) =>
  t.field({
    type: IssueChange,
    description:
      "Every change to the organization's issues (of one project when projectId is given), as it is committed.",
    args: {
      projectId: t.arg.id({
        required: false,
        description: 'Only the issues of this project: its id or its key (`WEB`, any case).',
      }),
    },
    subscribe: (_root, args, ctx) => watchChanges.call(ctx, { projectId: args.projectId, subject: 'issue' }, undefined),
    resolve: (event) => event,
  }),
);

builder.subscriptionField('projectChanged', (t) =>
  t.field({
    type: ProjectChange,
    description: "Every change to the organization's projects, as it is committed.",
    subscribe: (_root, _args, ctx) => watchChanges.call(ctx, { subject: 'project' }, undefined),
    resolve: (event) => event,
  }),
);
