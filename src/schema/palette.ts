import type { Context } from '../context.js';
import { ROUTE_POLICIES } from '../limits/policy.js';
import { builder } from './builder.js';
import { fixedList } from './list-bounds.js';
import { defineOperation } from './operation.js';
import { parseIssueKey } from './issue-lookup.js';
import { findPeople } from './person.js';
import { findRanked, insensitive, matchTier, SEARCH_LIMIT, SearchArgs, type TextMatch } from './search-text.js';
import { activeOrgId } from './viewer.js';

export const HIT_TYPES = ['PROJECT', 'ISSUE', 'PERSON'] as const;
type HitType = (typeof HIT_TYPES)[number];

export interface PaletteHitShape {
  type: HitType;
  id: string;
  title: string;
  key: string | null;
  projectId: string | null;
  username: string | null;
}

const PaletteHitTypeEnum = builder.enumType('PaletteHitType', { values: HIT_TYPES });

const PaletteHitRef = builder.objectRef<PaletteHitShape>('PaletteHit').implement({
  description: 'One result of the command palette: enough to show it and to open it.',
  fields: (t) => ({
    type: t.field({ type: PaletteHitTypeEnum, resolve: (hit) => hit.type }),
    id: t.exposeID('id', { description: 'The project, issue or user id.' }),
    title: t.exposeString('title', { description: "The project's name, the issue's title or the person's name." }),
    key: t.exposeString('key', { nullable: true, description: 'Project key (WEB) or issue key (WEB-12).' }),
    projectId: t.exposeID('projectId', { nullable: true, description: "An issue's project." }),
    username: t.exposeString('username', { nullable: true, description: "A person's username." }),
  }),
});

// Palette tiers: 0 an exact key (WEB, WEB-12), 1 another exact match, 2 a prefix, 3 a substring.
const tierOf = (q: string, key: string | null, ...labels: string[]) =>
  matchTier(q, key) === 0 ? 0 : 1 + Math.min(...[key, ...labels].map((text) => matchTier(q, text)));

async function findProjects(ctx: Context, orgId: string, q: string) {
  const find = (match: TextMatch) =>
    ctx.prisma.project.findMany({
      where: { orgId, OR: [{ key: insensitive(match, q) }, { name: insensitive(match, q) }] },
      select: { id: true, name: true, key: true },
      orderBy: [{ key: 'asc' }],
      take: SEARCH_LIMIT,
    });
  const ranked = await findRanked(find, (p) => tierOf(q, p.key, p.name), (p) => p.id);
  return ranked.map(({ row, tier }) => ({
    tier,
    hit: { type: 'PROJECT' as const, id: row.id, title: row.name, key: row.key, projectId: null, username: null },
  }));
}

async function findIssues(ctx: Context, orgId: string, q: string) {
  const select = { id: true, title: true, number: true, projectId: true, project: { select: { key: true } } } as const;
  const key = parseIssueKey(q);
  const [byKey, byTitle] = await Promise.all([
    key
      ? ctx.prisma.issue.findMany({ where: { orgId, number: key.number, project: { key: key.projectKey } }, select })
      : Promise.resolve([]),
    findRanked(
      (match: TextMatch) =>
        ctx.prisma.issue.findMany({
          where: { orgId, title: insensitive(match, q) },
          select,
          orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
          take: SEARCH_LIMIT,
        }),
      (issue) => 1 + matchTier(q, issue.title),
      (issue) => issue.id,
    ),
  ]);
  return [...byKey.map((row) => ({ row, tier: 0 })), ...byTitle.filter(({ row }) => !byKey.some((k) => k.id === row.id))].map(
    ({ row, tier }) => ({
      tier,
      hit: {
        type: 'ISSUE' as const,
        id: row.id,
        title: row.title,
        key: `${row.project.key}-${row.number}`,
        projectId: row.projectId,
        username: null,
      },
    }),
  );
}

export const paletteSearch = defineOperation({
  name: 'paletteSearch',
  description:
    "Command-palette search of the caller's organization: projects by key or name, issues by key (WEB-12) or title, " +
    'people by name or username. Exact key matches first, then other exact matches, then prefixes, then substrings ' +
    '(projects before issues before people within each); at most 20.',
  kind: 'read',
  access: { role: 'viewer' },
  rateLimit: { policy: ROUTE_POLICIES.search },
  input: SearchArgs,
  async run(ctx, { q }): Promise<PaletteHitShape[]> {
    const orgId = activeOrgId(ctx);
    const [projects, issues, people] = await Promise.all([
      findProjects(ctx, orgId, q),
      findIssues(ctx, orgId, q),
      findPeople(ctx, q).then((found) =>
        found.map(({ row, tier }) => ({
          tier: tier + 1,
          hit: { type: 'PERSON' as const, id: row.id, title: row.name, key: null, projectId: null, username: row.username },
        })),
      ),
    ]);
    // A stable sort keeps each type's own order (its best first) within a tier.
    return [...projects, ...issues, ...people]
      .sort((a, b) => a.tier - b.tier || HIT_TYPES.indexOf(a.hit.type) - HIT_TYPES.indexOf(b.hit.type))
      .slice(0, SEARCH_LIMIT)
      .map(({ hit }) => hit);
  },
});

builder.queryField('paletteSearch', (t) =>
  t.field({
    type: [PaletteHitRef],
    description: paletteSearch.description,
    complexity: fixedList(SEARCH_LIMIT),
    args: { q: t.arg.string({ required: true, description: '1 to 100 characters.' }) },
    resolve: (_root, args, ctx) => paletteSearch.call(ctx, args, undefined),
  }),
);
