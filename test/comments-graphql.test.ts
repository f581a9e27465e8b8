import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestApp, type TestApp } from './support/app.js';
import { listen } from './support/socket.js';
import { subscribe } from './support/sse.js';

/**
 * Comments through GraphQL: Issue.comments (a connection, oldest first, paged both ways), the
 * mutations' typed errors by role, and the issue's live subscription hearing its comments.
 */
let t: TestApp;
let server: Awaited<ReturnType<typeof listen>>;
beforeAll(async () => {
  t = await startTestApp();
  server = await listen(t.app);
});
afterAll(async () => {
  await server.close();
  await t.close();
});

async function gql(username: string, query: string, variables?: Record<string, unknown>, org = 'acme') {
  const response = await t.call('POST', '/api/graphql', {
    token: t.user(username, org).token,
    body: { query, variables },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { data?: Record<string, any>; errors?: { extensions?: { code?: string } }[] };
}

const OUTCOME = '__typename ... on Error { code message } ... on ValidationError { fieldErrors { field message } }';
const CREATE = `mutation($issueId: ID!, $body: String!) { createComment(issueId: $issueId, input: { body: $body }) { ${OUTCOME} ... on MutationCreateCommentSuccess { data { id body authorId author { username } issue { key } } } } }`;
const UPDATE = `mutation($id: ID!, $body: String!) { updateComment(id: $id, input: { body: $body }) { ${OUTCOME} ... on MutationUpdateCommentSuccess { data { id body } } } }`;
const DELETE = `mutation($id: ID!) { deleteComment(id: $id) { __typename ... on Error { code message } ... on MutationDeleteCommentSuccess { data } } }`;
const PAGE = `query($key: ID!, $first: Int, $after: String, $last: Int, $before: String) { issue(id: $key) { comments(first: $first, after: $after, last: $last, before: $before) { edges { cursor node { body author { username } } } pageInfo { hasNextPage hasPreviousPage endCursor startCursor } } } }`;

async function newIssue(): Promise<{ id: string; key: string }> {
  const response = await t.call('POST', '/api/issues', {
    token: t.user('mark').token,
    body: { project_id: 'WEB', title: 'GraphQL talk' },
  });
  return response.json();
}

describe('GraphQL comments', () => {
  test('create, page oldest first both ways, edit by author or admin, delete; typed errors', async () => {
    const issue = await newIssue();
    const created = await gql('mark', CREATE, { issueId: issue.key, body: 'one' });
    expect(created.data!.createComment).toMatchObject({
      __typename: 'MutationCreateCommentSuccess',
      data: { body: 'one', authorId: t.user('mark').id, author: { username: 'mark' }, issue: { key: issue.key } },
    });
    for (const body of ['two', 'three']) await gql('olivia', CREATE, { issueId: issue.id, body });

    const first = (await gql('victor', PAGE, { key: issue.key, first: 2 })).data!.issue.comments;
    expect(first.edges.map((e: { node: { body: string } }) => e.node.body)).toEqual(['one', 'two']);
    expect(first.pageInfo.hasNextPage).toBe(true);
    const rest = (await gql('victor', PAGE, { key: issue.key, first: 2, after: first.pageInfo.endCursor })).data!.issue
      .comments;
    expect(rest.edges.map((e: { node: { body: string } }) => e.node.body)).toEqual(['three']);
    const last = (await gql('victor', PAGE, { key: issue.key, last: 2 })).data!.issue.comments;
    expect(last.edges.map((e: { node: { body: string } }) => e.node.body)).toEqual(['two', 'three']);
    const before = (await gql('victor', PAGE, { key: issue.key, last: 5, before: last.pageInfo.startCursor })).data!
      .issue.comments;
    expect(before.edges.map((e: { node: { body: string } }) => e.node.body)).toEqual(['one']);
    expect((await gql('victor', PAGE, { key: issue.key, first: 101 })).errors).toBeDefined();

    const id = created.data!.createComment.data.id;
    expect((await gql('maya', UPDATE, { id, body: 'hijack' })).data!.updateComment).toMatchObject({
      __typename: 'ForbiddenError',
      code: 'FORBIDDEN',
    });
    expect((await gql('mark', UPDATE, { id, body: '' })).data!.updateComment).toMatchObject({
      __typename: 'ValidationError',
      fieldErrors: [{ field: 'body', message: 'must not be empty' }],
    });
    expect((await gql('adam', UPDATE, { id, body: 'moderated' })).data!.updateComment).toMatchObject({
      data: { body: 'moderated' },
    });
    expect((await gql('bella', DELETE, { id }, 'globex')).data!.deleteComment).toMatchObject({
      __typename: 'NotFoundError',
    });
    expect((await gql('mark', DELETE, { id })).data!.deleteComment).toEqual({
      __typename: 'MutationDeleteCommentSuccess',
      data: id,
    });
    const viewer = await gql('victor', CREATE, { issueId: issue.id, body: 'no' });
    expect(viewer.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });

  test("the issue's subscription hears its comments as UPDATED changes of `comments`", async () => {
    const issue = await newIssue();
    const url = `http://127.0.0.1:${server.port}/api/graphql`;
    const stream = await subscribe(
      url,
      { authorization: `Bearer ${t.user('victor').token}` },
      'subscription { issueChanged { kind issueId fields issue { comments { edges { node { body } } } } } }',
    );
    expect(stream.status).toBe(200);
    const made = await gql('mark', CREATE, { issueId: issue.id, body: 'live' });
    expect(await stream.next()).toEqual({
      data: {
        issueChanged: {
          kind: 'UPDATED',
          issueId: issue.id,
          fields: ['comments'],
          issue: { comments: { edges: [{ node: { body: 'live' } }] } },
        },
      },
    });
    await gql('mark', DELETE, { id: made.data!.createComment.data.id });
    expect(await stream.next()).toMatchObject({
      data: { issueChanged: { kind: 'UPDATED', fields: ['comments'], issue: { comments: { edges: [] } } } },
    });
    stream.close();
  });
});
