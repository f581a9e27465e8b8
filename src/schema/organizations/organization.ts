import { z } from 'zod';
import { Prisma } from '../../generated/prisma/client.js';
import { ROUTE_POLICIES } from '../../limits/policy.js';
import { builder } from '../core/builder.js';
import { boundedList, firstArg, fixedList, LIST_BOUNDS, listSize } from '../core/list-bounds.js';
import { ConflictError, ValidationError } from '../core/errors.js';
import { notNull } from '../core/messages.js';
import { defineOperation } from '../core/operation.js';
import { SEARCH_LIMIT, SearchArgs } from '../core/search-text.js';
import { nonEmpty } from '../core/selection.js';
import { viewer } from '../people/viewer.js';
import { storableString } from '../core/text.js';
import { outcome } from '../core/outcome.js';

builder.prismaObject('Organization', {
  description: 'An organization: its projects, issues and members are visible to its members only.',
  select: { id: true },
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The organization id.' }),
    name: t.exposeString('name', { description: 'Its display name.' }),
    slug: t.exposeString('slug', {
      description: 'Its short name in addresses (/orgs/<slug>): lowercase letters, digits and dashes; unique.',
    }),
    isPublic: t.exposeBoolean('isPublic', { description: 'Listed in the public organization directory.' }),
    projects: t.relation('projects', {
      description: `By key; at most ${LIST_BOUNDS.organizationProjects}.`,
      args: { first: t.arg.int(firstArg(LIST_BOUNDS.organizationProjects)) },
      query: (args) => ({ orderBy: [{ key: 'asc' }], take: listSize(args.first, LIST_BOUNDS.organizationProjects) }),
      complexity: boundedList(LIST_BOUNDS.organizationProjects),
    }),
  }),
});

/**
 * An entry of the public directory: only what the directory shows. Deliberately not
 * `Organization`, whose fields (projects, and through them issues and people) belong to members.
 */
const DirectoryOrganization = builder.prismaObject('Organization', {
  variant: 'DirectoryOrganization',
  description: 'An organization as the public directory shows it: its name and slug, to ask for an invitation.',
  select: { id: true },
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The organization id.' }),
    name: t.exposeString('name', { description: 'Its display name.' }),
    slug: t.exposeString('slug', { description: 'Its short name in addresses.' }),
    isPublic: t.exposeBoolean('isPublic', { description: 'Always true here: only listed organizations are found.' }),
  }),
});

export const searchOrganizations = defineOperation({
  name: 'searchOrganizations',
  description:
    'Searches the public organization directory by name or slug (at most 20 results). A cross-organization operation: not available to API keys.',
  kind: 'read',
  access: { notPat: true },
  rateLimit: { policy: ROUTE_POLICIES.search },
  input: SearchArgs,
  run: (ctx, { q }, query: { select?: Prisma.OrganizationSelect }) =>
    ctx.prisma.organization.findMany({
      ...query,
      where: {
        isPublic: true,
        OR: [{ name: { contains: q, mode: 'insensitive' } }, { slug: { contains: q, mode: 'insensitive' } }],
      },
      orderBy: [{ name: 'asc' }, { id: 'asc' }],
      take: SEARCH_LIMIT,
    }),
});

builder.queryField('searchOrganizations', (t) =>
  t.prismaField({
    type: [DirectoryOrganization],
    description: searchOrganizations.description,
    complexity: fixedList(SEARCH_LIMIT),
    args: { q: t.arg.string({ required: true, description: 'Part of the name or slug, ignoring case.' }) },
    resolve: (query, _root, args, ctx) => searchOrganizations.call(ctx, args, query),
  }),
);

const CreateOrganizationInput = builder.inputType('CreateOrganizationInput', {
  description: 'A new organization.',
  fields: (t) => ({
    name: t.string({ description: `Its display name, 1 to ${ORG_NAME_MAX} characters.` }),
    slug: t.string({ description: 'Lowercase letters, digits and dashes; unique.' }),
    isPublic: t.boolean({ required: false, description: 'List it in the public directory (default false).' }),
  }),
});

export const ORG_NAME_MAX = 100;
/** 1 to 40 lowercase letters, digits and dashes. */
export const ORG_SLUG_MAX = 40;

const CreateOrganization = z.strictObject({
  name: storableString(notNull('must be a string'))
    .trim()
    .min(1, 'must not be empty')
    .max(ORG_NAME_MAX, `must be at most ${ORG_NAME_MAX} characters`),
  slug: z
    .string(notNull('must be a string'))
    .trim()
    .toLowerCase()
    .regex(
      /^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/,
      'must be 1-40 lowercase letters, digits or dashes, not starting or ending with a dash',
    )
    // The pattern is the check; the bound it implies is written out for OpenAPI.
    .meta({ maxLength: ORG_SLUG_MAX }),
  isPublic: z.boolean(notNull('must be true or false')).default(false),
});

export const createOrganization = defineOperation({
  name: 'createOrganization',
  description:
    'Creates an organization with the caller as its owner. A cross-organization operation: not available to API keys.',
  kind: 'write',
  access: { notPat: true },
  input: CreateOrganization,
  async run(ctx, input, query: { select?: Prisma.MembershipSelect }) {
    const me = viewer(ctx);
    try {
      return await ctx.prisma.$transaction(async (tx) => {
        const org = await tx.organization.create({ data: input, select: { id: true } });
        return tx.membership.create({ ...nonEmpty(query), data: { orgId: org.id, userId: me.userId, role: 'owner' } });
      });
    } catch (error) {
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') {
        throw new ConflictError(`The slug "${input.slug}" is taken.`);
      }
      throw error;
    }
  },
});

builder.mutationField('createOrganization', (t) =>
  t.prismaField({
    type: 'Membership',
    description: createOrganization.description,
    errors: outcome('createOrganization', 'Your membership (as owner) of the new organization.', [
      ValidationError,
      ConflictError,
    ]),
    args: {
      input: t.arg({
        type: CreateOrganizationInput,
        required: true,
        description: 'Its name, slug and whether the directory lists it.',
      }),
    },
    resolve: (query, _root, args, ctx) => createOrganization.call(ctx, args.input, query),
  }),
);
