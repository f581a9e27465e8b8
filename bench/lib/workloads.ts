// The requests every workload sends, shared by the load runs, the in-process SQL count and the
// response comparison, so all three look at exactly the same thing.
import type { Plan } from './dataset.js';
import { allTokens, writeTokens } from './dataset.js';

export type WorkloadId =
  | 'rest_read'
  | 'rest_create'
  | 'rest_me'
  | 'graphql_nested'
  | 'rest_read_noauth'
  | 'rest_read_small';

export const NESTED_QUERY =
  '{ memberships { organization { projects { issues(first: 50) { edges { node { id title assignee { id name } } } } } } } }';

export interface BenchRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface Workload {
  id: WorkloadId;
  label: string;
  /** The i-th request of a run (tokens and bodies rotate with i). */
  request(i: number): BenchRequest;
}

const TITLES = [
  'Fix flaky export',
  'Add audit entry for key use',
  'Tidy the settings page',
  'Investigate slow search',
  'Document webhook retries',
];

export function workloads(plan: Plan): Record<WorkloadId, Workload> {
  const read = allTokens(plan);
  const write = writeTokens(plan);
  const big = [...plan.projects].sort((a, b) => b.total - a.total)[0]!;
  const small = plan.projects.find((p) => p.total === p.initial) ?? plan.projects[0]!;
  // Creates go to every project but the small one (kept at 100 issues for the 1k/100k comparison).
  const targets = plan.projects.filter((p) => p.id !== small.id);
  const assignees = plan.users;
  const auth = (token: string) => ({ authorization: `Bearer ${token}` });
  const list = (projectId: string) => `/api/issues?project_id=${projectId}&limit=100`;
  return {
    rest_read: {
      id: 'rest_read',
      label: `(a) GET /api/issues?project_id=&limit=100 (project ${big.key}, ${big.total} issues)`,
      request: (i) => ({ method: 'GET', path: list(big.id), headers: auth(read[i % read.length]!) }),
    },
    rest_read_small: {
      id: 'rest_read_small',
      label: `(a') GET /api/issues?project_id=&limit=100 (project ${small.key}, 100 issues)`,
      request: (i) => ({ method: 'GET', path: list(small.id), headers: auth(read[i % read.length]!) }),
    },
    rest_create: {
      id: 'rest_create',
      label: '(b) POST /api/issues',
      request: (i) => ({
        method: 'POST',
        path: '/api/issues',
        headers: { ...auth(write[i % write.length]!), 'content-type': 'application/json' },
        body: JSON.stringify({
          project_id: targets[i % targets.length]!.id,
          title: `${TITLES[i % TITLES.length]} #${i}`,
          status: 'Todo',
          priority: 'medium',
          description: 'Created by the benchmark.',
          assignee_id: assignees[(i * 7) % assignees.length]!.id,
        }),
      }),
    },
    rest_me: {
      id: 'rest_me',
      label: '(c) GET /api/me',
      request: (i) => ({ method: 'GET', path: '/api/me', headers: auth(read[i % read.length]!) }),
    },
    graphql_nested: {
      id: 'graphql_nested',
      label: '(d) GraphQL memberships > organization > projects > issues(first: 50) > assignee',
      request: (i) => ({
        method: 'POST',
        path: '/api/graphql',
        headers: { ...auth(read[i % read.length]!), 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ query: NESTED_QUERY }),
      }),
    },
    rest_read_noauth: {
      id: 'rest_read_noauth',
      label: `(e) GET /api/issues?project_id=&limit=100 without auth and rate limiting (project ${big.key})`,
      request: () => ({ method: 'GET', path: list(big.id), headers: {} }),
    },
  };
}

/** The fixed principal of the no-auth variants: the first member-role user. */
export function noAuthUser(plan: Plan) {
  return plan.users.find((u) => u.role === 'member') ?? plan.users[0]!;
}
