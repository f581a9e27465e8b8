import type { Context } from '../context.js';
import { json } from './json.js';
import { defineOperation, runOperation } from './operation.js';

const ME = defineOperation(/* GraphQL */ `
  query Me {
    me { id email name username locale }
  }
`);

const MY_ORGS = defineOperation(/* GraphQL */ `
  query MyOrgs {
    memberships {
      id
      role
      organization { id name slug projects { id name key } }
    }
  }
`);

interface MyOrgs {
  memberships: {
    id: string;
    role: string;
    organization: { id: string; name: string; slug: string; projects: { id: string; name: string; key: string }[] };
  }[];
}

/** GET /api/me */
export async function getMe(_request: Request, ctx: Context): Promise<Response> {
  const { me } = await runOperation<{ me: unknown }>(ME, ctx);
  return json(me);
}

/** GET /api/me/orgs: the caller's memberships; a PAT caller sees only its bound org. */
export async function getMyOrgs(_request: Request, ctx: Context): Promise<Response> {
  const { memberships } = await runOperation<MyOrgs>(MY_ORGS, ctx);
  const orgs = memberships.map((m) => ({
    employee_id: m.id,
    org_id: m.organization.id,
    org_name: m.organization.name,
    org_slug: m.organization.slug,
    role: m.role,
    projects: m.organization.projects,
  }));
  return json({ orgs, count: orgs.length });
}
