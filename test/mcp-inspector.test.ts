import { afterAll, beforeAll, expect, test } from 'vitest';
import { startTestApp, type TestApp } from './support/app.js';
import { runAsync } from './support/server-process.js';
import { listen } from './support/socket.js';
import { TOOL_NAMES } from './support/mcp-tool-names.js';

// A second stock client: the MCP Inspector's CLI (run with npx, as its README says), against the
// service on a real socket, with an API key instead of OAuth.

const INSPECTOR = '@modelcontextprotocol/inspector@2.12.0';

let t: TestApp;
let socket: Awaited<ReturnType<typeof listen>>;
beforeAll(async () => {
  t = await startTestApp();
  socket = await listen(t.app);
});
afterAll(async () => {
  await socket?.close();
  await t?.close();
});

const inspector = (args: string) =>
  runAsync(
    `npx -y ${INSPECTOR} --cli http://127.0.0.1:${socket.port}/api/mcp --transport http --header "Authorization: Bearer ${t.user('mark').token}" ${args}`,
    { npm_config_loglevel: 'error', npm_config_update_notifier: 'false' },
  );

test('npx @modelcontextprotocol/inspector --cli lists the tools and calls one with a PAT', {
  timeout: 300_000,
}, async () => {
  const listed = await inspector('--method tools/list');
  expect(listed.code, listed.stderr).toBe(0);
  const { tools } = JSON.parse(listed.stdout) as { tools: { name: string; annotations: { readOnlyHint: boolean } }[] };
  expect(tools.map((tool) => tool.name)).toEqual(TOOL_NAMES);
  const called = await inspector('--method tools/call --tool-name get_issue --tool-arg id=WEB-1');
  expect(called.code, called.stderr).toBe(0);
  expect(JSON.parse(called.stdout).structuredContent).toMatchObject({
    key: 'WEB-1',
    title: 'Set up continuous integration',
  });
});
