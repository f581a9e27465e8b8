import { WorkmgmtClient, type WorkmgmtClientOptions } from './client.js';
import type { Issue } from './generated/types.gen.js';

export interface ExportOptions extends Omit<WorkmgmtClientOptions, 'token'> {
  /** One token per worker: each has its own rate-limit budget (the spec suggests 4 to 8). */
  tokens: string[];
  /** The projects to export (ids or keys), handed to whichever worker is free. */
  projectIds: string[];
  /** Issues per page (the service's recommended bulk page size, 100, by default). */
  pageSize?: number;
}

export interface ExportResult {
  issues: number;
  /** Milliseconds the workers waited for rate limits and retries, added up. */
  waitedMs: number;
}

/**
 * Exports every issue of the projects with one worker per token, as the spec advises for bulk
 * jobs: each worker is a client of its own (its own budget, slowing down and backing off on its
 * own) and takes the next project when it finishes one. `emit` gets every issue once; a promise it
 * returns is awaited before that worker reads on.
 */
export async function exportIssues(options: ExportOptions, emit: (issue: Issue) => unknown): Promise<ExportResult> {
  const { tokens, projectIds, pageSize = 100, ...clientOptions } = options;
  if (tokens.length === 0) throw new TypeError('exportIssues needs at least one token');
  const queue = [...projectIds];
  let issues = 0;
  const workers = tokens.map((token) => new WorkmgmtClient({ ...clientOptions, token }));
  await Promise.all(
    workers.map(async (worker) => {
      for (let project = queue.shift(); project !== undefined; project = queue.shift()) {
        for await (const issue of worker.each('listIssues', { query: { project_id: project, limit: pageSize } })) {
          await emit(issue);
          issues++;
        }
      }
    }),
  );
  return { issues, waitedMs: workers.reduce((sum, worker) => sum + worker.waitedMs, 0) };
}
