/** Example values of the API reference, shared by the routes' examples (each is checked against its schema by the OpenAPI test). */
export const EX = {
  userId: '5b0c1d2e-3f40-4a5b-8c6d-7e8f90a1b2c3',
  orgId: '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
  membershipId: '1b2c3d4e-5f60-4b7c-9d8e-0f1a2b3c4d5e',
  projectId: '2c3d4e5f-6071-4c8d-8e9f-1a2b3c4d5e6f',
  issueId: '3d4e5f60-7182-4d9e-9fa0-2b3c4d5e6f70',
  keyId: '4e5f6071-8293-4eaf-a0b1-3c4d5e6f7081',
  invitationId: '7f8091a2-b3c4-4d5e-8f60-718293a4b5c6',
  created: '2026-01-31T12:00:00.000Z',
  updated: '2026-02-02T09:30:00.000Z',
} as const;

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
  user: { id: EX.userId, email: 'olivia@example.com', name: 'Olivia Owner', username: 'olivia', locale: 'en' },
  project: { id: EX.projectId, name: 'Website', key: 'WEB', issue_count: 12, created_at: EX.created, updated_at: EX.updated },
  issue: {
    id: EX.issueId,
    key: 'WEB-12',
    project_id: EX.projectId,
    number: 12,
    title: 'Fix the login redirect loop',
    status: 'In Progress',
    priority: 'high',
    description: 'Signing in from /settings sends the browser back and forth.',
    assignee_id: EX.userId,
    created_at: EX.created,
    updated_at: EX.updated,
  },
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
