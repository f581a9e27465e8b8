import { ApiClient, type ApiClientOptions } from './api-client.js';

/**
 * Exports the issues of several projects with one worker per token (the spec suggests 4 to 8
 * workers, each with its own PAT and so its own rate-limit budget). Projects are handed out to
 * whichever worker is free; every issue is passed to `emit` once.
 */
export async function exportIssues(
  options: Omit<ApiClientOptions, 'token'> & { tokens: string[]; projectIds: string[] },
  emit: (issue: Record<string, unknown>) => void,
): Promise<{ issues: number; waitedMs: number }> {
  const queue = [...options.projectIds];
  let issues = 0;
  const clients = options.tokens.map((token) => new ApiClient({ ...options, token }));
  await Promise.all(
    clients.map(async (client) => {
      for (let projectId = queue.shift(); projectId !== undefined; projectId = queue.shift()) {
        for await (const issue of client.issues(projectId)) {
          emit(issue);
          issues++;
        }
      }
    }),
  );
  return { issues, waitedMs: clients.reduce((sum, c) => sum + c.waitedMs, 0) };
}
