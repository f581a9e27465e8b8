import type { Context } from '../context.js';
import { readJsonObject } from './body.js';
import { json } from './json.js';
import { defineOperation, ERROR_FIELDS, FIELD_ERRORS, runOperation, unwrapResult } from './operation.js';
import { queryValue, snakeToCamelKeys } from './params.js';

const ORG_FIELDS = /* GraphQL */ `fragment OrgFields on Organization { id name slug isPublic }`;

const MY_ORGS = defineOperation(/* GraphQL */ `
  query Orgs { memberships { id role organization { ...OrgFields } } }
  ${ORG_FIELDS}
`);

const SEARCH_ORGS = defineOperation(/* GraphQL */ `
  query SearchOrgs($q: String!) { searchOrganizations(q: $q) { id name slug isPublic } }
`);

const CREATE_ORG = defineOperation(/* GraphQL */ `
  mutation CreateOrg($input: CreateOrganizationInput!) {
    createOrganization(input: $input) {
      ... on MutationCreateOrganizationSuccess { data { id role organization { ...OrgFields } } }
      ${ERROR_FIELDS}
      ${FIELD_ERRORS}
    }
  }
  ${ORG_FIELDS}
`);

const JOIN_ORG = defineOperation(/* GraphQL */ `
  mutation JoinOrg($code: String!) {
    joinOrganization(code: $code) {
      ... on MutationJoinOrganizationSuccess { data { id role organization { ...OrgFields } } }
      ${ERROR_FIELDS}
    }
  }
  ${ORG_FIELDS}
`);

const CREATE_INVITATION = defineOperation(/* GraphQL */ `
  mutation CreateInvitation($role: Role!, $expiresInDays: Int) {
    createInvitation(role: $role, expiresInDays: $expiresInDays) {
      ... on MutationCreateInvitationSuccess { data { code invitation { id role expiresAt } } }
      ${ERROR_FIELDS}
      ${FIELD_ERRORS}
    }
  }
`);

interface OrgNode {
  id: string;
  name: string;
  slug: string;
  isPublic: boolean;
}
interface MembershipNode {
  id: string;
  role: string;
  organization: OrgNode;
}

const orgJson = (org: OrgNode) => ({ id: org.id, name: org.name, slug: org.slug, is_public: org.isPublic });
const membershipJson = (m: MembershipNode) => ({ ...orgJson(m.organization), role: m.role, employee_id: m.id });

/** GET /api/orgs: the caller's organizations (only the bound one for an API key). */
export async function listOrgs(_request: Request, ctx: Context): Promise<Response> {
  const { memberships } = await runOperation<{ memberships: MembershipNode[] }>(MY_ORGS, ctx);
  return json({ orgs: memberships.map(membershipJson), count: memberships.length });
}

/** GET /api/orgs/search?q=: the public directory. */
export async function searchOrgs(request: Request, ctx: Context): Promise<Response> {
  const { searchOrganizations } = await runOperation<{ searchOrganizations: OrgNode[] }>(SEARCH_ORGS, ctx, {
    q: queryValue(new URL(request.url), 'q'),
  });
  return json(searchOrganizations.map(orgJson));
}

/** POST /api/orgs: 201 with the new organization and the caller's owner membership. */
export async function createOrg(request: Request, ctx: Context): Promise<Response> {
  const input = snakeToCamelKeys(await readJsonObject(request));
  const { createOrganization } = await runOperation<{ createOrganization: Parameters<typeof unwrapResult<MembershipNode>>[0] }>(
    CREATE_ORG,
    ctx,
    { input },
  );
  return json(membershipJson(unwrapResult(createOrganization)), { status: 201 });
}

/** POST /api/orgs/join {invite_code}: 201 with the new membership. */
export async function joinOrg(request: Request, ctx: Context): Promise<Response> {
  const body = await readJsonObject(request);
  const { joinOrganization } = await runOperation<{ joinOrganization: Parameters<typeof unwrapResult<MembershipNode>>[0] }>(
    JOIN_ORG,
    ctx,
    { code: body.invite_code },
    { code: 'invite_code' },
  );
  return json(membershipJson(unwrapResult(joinOrganization)), { status: 201 });
}

/** POST /api/invitations {role, expires_in_days?}: 201 with the code, shown once. */
export async function createInvitation(request: Request, ctx: Context): Promise<Response> {
  const body = snakeToCamelKeys(await readJsonObject(request));
  const { createInvitation } = await runOperation<{
    createInvitation: Parameters<typeof unwrapResult<{ code: string; invitation: { id: string; role: string; expiresAt: string } }>>[0];
  }>(CREATE_INVITATION, ctx, { role: body.role, expiresInDays: body.expiresInDays }, { expiresInDays: 'expires_in_days' });
  const { code, invitation } = unwrapResult(createInvitation);
  return json({ id: invitation.id, role: invitation.role, expires_at: invitation.expiresAt, invite_code: code }, { status: 201 });
}
