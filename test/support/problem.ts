import { expect } from 'vitest';

export interface ProblemBody {
  status: number;
  code: string;
  detail: string;
  errors?: { field: string; message: string }[];
}

/**
 * Asserts an RFC 9457 problem with this status and code, and returns its body without
 * `request_id` (checked here to be the response's X-Request-Id; it names the request, not the
 * answer, so bodies of different requests compare equal without it).
 */
export async function expectProblem(response: Response, status: number, code: string): Promise<ProblemBody> {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  const { request_id: requestId, ...body } = await response.json();
  expect(body).toMatchObject({
    status,
    code,
    title: expect.any(String),
    detail: expect.any(String),
    type: expect.stringContaining(code),
  });
  expect(requestId).toBe(response.headers.get('x-request-id'));
  return body as ProblemBody;
}

/** The field errors of a 400 validation problem, as { field: message } pairs. */
export async function fieldErrors(response: Response): Promise<ProblemBody['errors']> {
  return (await expectProblem(response, 400, 'validation_failed')).errors;
}
