import type { Context } from '../../context.js';
import { ROUTE_POLICIES } from '../../limits/policy.js';
import { builder } from '../core/builder.js';
import { fixedList, textCost } from '../core/list-bounds.js';
import { PROJECT_NAME_MAX } from '../projects/fields.js';
import { USER_NAME_MAX } from './fields.js';
import { TITLE_MAX } from '../issues/workflow.js';
import { defineOperation } from '../core/operation.js';
import { parseIssueKey } from '../issues/lookup.js';
import { findPeople } from './person.js';
import { findRanked, insensitive, matchTier, SEARCH_LIMIT, SearchArgs, type TextMatch } from '../core/search-text.js';
import { activeOrgId } from './viewer.js';

const HIT_TYPES = ['PROJECT', 'ISSUE', 'PERSON'] as const;
type HitType = (typeof HIT_TYPES)[number];

export interface PaletteHitShape {
  type: HitType;
  id: string;
  title: string;
  key: string | null;
  projectId: string | null;
  username: string | null;
}

const PaletteHitTypeEnum = builder.enumType('PaletteHitType', {
  description: 'What a palette result is.',
  values: {
    PROJECT: { description: 'A project: id, title (its name) and key.' },
    ISSUE: { description: 'An issue: id, title, key and projectId.' },
    PERSON: { description: 'A member: id, title (the name) and username.' },
  } satisfies Record<(typeof HIT_TYPES)[number], unknown>,
});

const PaletteHitRef = builder.objectRef<PaletteHitShape>('PaletteHit').implement({
  description: 'One result of the command palette: enough to show it and to open it.',
  fields: (t) => ({
    type: t.field({
      type: PaletteHitTypeEnum,
      description: 'Whether it is a project, an issue or a person.',
      resolve: (hit) => hit.type,
    }),
    id: t.exposeID('id', { description: 'The project, issue or user id.' }),
    title: t.exposeString('title', {
      description: "The project's name, the issue's title or the person's name.",
      complexity: textCost(Math.max(PROJECT_NAME_MAX, TITLE_MAX, USER_NAME_MAX)),
    }),
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
  const ranked = await findRanked(
    find,
    (p) => tierOf(q, p.key, p.name),
    (p) => p.id,
  );
  return ranked.map(({ row, tier }) => ({
    tier,
    hit: { type: 'PROJECT' as const, id: row.id, title: row.name, key: row.key, projectId: null, username: null },
  }));
}

/** The largest issue number PostgreSQL's integer column holds. */
const MAX_NUMBER = 2 ** 31 - 1;

/**
 * Issue numbers whose decimal form starts with `digits` (`1`: 1, 10-19, 100-199, ...), as
 * ranges a where clause can use; none for an empty prefix (every number) or one starting with 0.
 */
function numberPrefixRanges(digits: string): { gte: number; lte: number }[] | null {
  if (digits === '') return null;
  if (digits.startsWith('0')) return [];
  const ranges: { gte: number; lte: number }[] = [];
  for (let scale = 1, start = Number(digits); start * scale <= MAX_NUMBER; scale *= 10) {
    ranges.push({ gte: start * scale, lte: Math.min(MAX_NUMBER, (start + 1) * scale - 1) });
  }
  return ranges;
}

/** A project key, alone or followed by `-` and the start of a number: `WEB`, `web-`, `WEB-1`. */
const PARTIAL_ISSUE_KEY = /^([A-Za-z][A-Za-z0-9]{1,9})(?:-(\d{0,10}))?$/;

/**
 * Issues by their key as typed so far: the project's issues for `WEB` or `WEB-`, those whose
 * number starts with 1 for `web-1` (WEB-1 itself an exact match, first). Lowest numbers first.
 */
async function findIssuesByKey(ctx: Context, orgId: string, q: string, select: typeof ISSUE_SELECT) {
  const match = PARTIAL_ISSUE_KEY.exec(q);
  if (!match) return [];
  const ranges = numberPrefixRanges(match[2] ?? '');
  if (ranges?.length === 0) return [];
  const rows = await ctx.prisma.issue.findMany({
    where: {
      orgId,
      project: { key: match[1]!.toUpperCase() },
      ...(ranges ? { OR: ranges.map((number) => ({ number })) } : {}),
    },
    select,
    orderBy: [{ number: 'asc' }],
    take: SEARCH_LIMIT,
  });
  const exact = parseIssueKey(q);
  // An exact key is tier 0; a key typed in part is a prefix (tier 2, as a title prefix).
  return rows.map((row) => ({ row, tier: exact && exact.number === row.number ? 0 : 2 }));
}

const ISSUE_SELECT = {
  id: true,
  title: true,
  number: true,
  projectId: true,
  project: { select: { key: true } },
} as const;

async function findIssues(ctx: Context, orgId: string, q: string) {
  const [byKey, byTitle] = await Promise.all([
    findIssuesByKey(ctx, orgId, q, ISSUE_SELECT),
    findRanked(
      (match: TextMatch) =>
        ctx.prisma.issue.findMany({
          where: { orgId, title: insensitive(match, q) },
          select: ISSUE_SELECT,
          orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
          take: SEARCH_LIMIT,
        }),
      (issue) => 1 + matchTier(q, issue.title),
      (issue) => issue.id,
    ),
  ]);
  // An issue found both ways keeps its better tier.
  const best = new Map<string, { row: (typeof byKey)[number]['row']; tier: number }>();
  for (const found of [...byKey, ...byTitle]) {
    const seen = best.get(found.row.id);
    if (!seen || found.tier < seen.tier) best.set(found.row.id, found);
  }
  return [...best.values()].map(({ row, tier }) => ({
    tier,
    hit: {
      type: 'ISSUE' as const,
      id: row.id,
      title: row.title,
      key: `${row.project.key}-${row.number}`,
      projectId: row.projectId,
      username: null,
    },
  }));
}

export const paletteSearch = defineOperation({
  name: 'paletteSearch',
  description:
    "Command-palette search of the caller's organization: projects by key or name, issues by key (WEB-12, or typed in part: " +
    'WEB, WEB-, web-1) or title, ' +
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
          hit: {
            type: 'PERSON' as const,
            id: row.id,
            title: row.name,
            key: null,
            projectId: null,
            username: row.username,
          },
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
