/** Example values of the API reference, shared by the representations' examples and the routes' (each is checked against its schema by the OpenAPI test). */
export const EX = {
  userId: '5b0c1d2e-3f40-4a5b-8c6d-7e8f90a1b2c3',
  orgId: '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
  membershipId: '1b2c3d4e-5f60-4b7c-9d8e-0f1a2b3c4d5e',
  projectId: '2c3d4e5f-6071-4c8d-8e9f-1a2b3c4d5e6f',
  issueId: '3d4e5f60-7182-4d9e-9fa0-2b3c4d5e6f70',
  keyId: '4e5f6071-8293-4eaf-a0b1-3c4d5e6f7081',
  invitationId: '7f8091a2-b3c4-4d5e-8f60-718293a4b5c6',
  labelId: '8091a2b3-c4d5-4e6f-8071-8293a4b5c6d7',
  created: '2026-01-31T12:00:00.000Z',
  updated: '2026-02-02T09:30:00.000Z',
} as const;
