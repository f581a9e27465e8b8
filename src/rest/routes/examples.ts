import { ISSUE_EXAMPLE } from '../../schema/issues/representation.js';
import { USER_EXAMPLE } from '../../schema/people/representation.js';
import { PROJECT_EXAMPLE } from '../../schema/projects/representation.js';
import { EX } from '../../schema/core/example-values.js';

const organization = { id: EX.orgId, name: 'Acme Corp', slug: 'acme', is_public: true };
const apiKey = {
  id: EX.keyId,
  name: 'CI deploys',
  hint: 'Q5r6',
  status: 'active',
  user_id: EX.userId,
  created_at: EX.created,
  expires_at: null,
  last_used_at: EX.updated,
  revoked_at: null,
};

export const EXAMPLE = {
  user: USER_EXAMPLE,
  project: PROJECT_EXAMPLE,
  issue: ISSUE_EXAMPLE,
  apiKey,
  createdApiKey: { ...apiKey, last_used_at: null, token: 'tok_live_A1b2C3d4E5f6G7h8J9k0L1m2N3p4Q5r6' },
  organization,
  membership: { ...organization, role: 'owner', employee_id: EX.membershipId },
  myOrgs: {
    orgs: [
      {
        employee_id: EX.membershipId,
        org_id: EX.orgId,
        org_name: 'Acme Corp',
        org_slug: 'acme',
        role: 'owner',
        projects: [{ id: EX.projectId, name: 'Website', key: 'WEB' }],
      },
    ],
    count: 1,
  },
  invitation: {
    id: EX.invitationId,
    role: 'member',
    expires_at: EX.updated,
    invite_code: 'inv_Zx8Qm2Lk7Wn4Rt1Yb6Pv9Hc3',
    invite_url: 'https://work.example.com/invite/inv_Zx8Qm2Lk7Wn4Rt1Yb6Pv9Hc3',
    email: null,
    mailed: false,
  },
  person: { id: EX.userId, name: 'Olivia Owner', username: 'olivia', role: 'owner', email: 'olivia@example.com' },
  paletteHits: [
    { type: 'project', id: EX.projectId, title: 'Website', key: 'WEB' },
    { type: 'issue', id: EX.issueId, title: 'Fix the login redirect loop', key: 'WEB-12', project_id: EX.projectId },
    { type: 'person', id: EX.userId, title: 'Olivia Owner', username: 'olivia' },
  ],
} as const;
