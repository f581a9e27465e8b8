// Spectral's ruleset for openapi.json (npm run lint:openapi, run by .ci/run): its OpenAPI rules
// and the OWASP API Security Top 10 (2023) rules, every one on unless said here why not.
import { oas } from '@stoplight/spectral-rulesets';
import owasp from '@stoplight/spectral-owasp-ruleset';
import { schema } from '@stoplight/spectral-functions';
import { oas3 } from '@stoplight/spectral-formats';

const RATE_LIMIT_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'RateLimit', 'RateLimit-Policy'];

export default {
  extends: [oas, owasp],
  rules: {
    // Off: its `oneOf` accepts IETF `RateLimit` or `X-RateLimit-Limit` but refuses a response
    // declaring both, and the service sends both (src/limits/headers.ts). Replaced by the stricter
    // rule below: every response, of any status, declares all five fields.
    'owasp:api4:2023-rate-limit': 'off',
    'workmgmt-rate-limit-headers': {
      description: 'Every response declares the rate-limit fields the pipeline adds to every response.',
      message: '{{error}}',
      severity: 'error',
      formats: [oas3],
      // Except 431: the HTTP server answers it before the request reaches the pipeline.
      given: "$.paths[*][*].responses[?(@property != '431')]",
      then: {
        field: 'headers',
        function: schema,
        functionOptions: { schema: { type: 'object', required: RATE_LIMIT_HEADERS } },
      },
    },
    // Off: free text (titles, names, descriptions, messages) has no format or pattern to give;
    // what bounds it is maxLength, which `owasp:api4:2023-string-limit` requires of every string.
    'owasp:api4:2023-string-restricted': 'off',
    // Off: NotFound and MethodNotAllowed describe answers of no declared operation (an unknown
    // path, a method a path does not answer); test/openapi.test.ts checks real answers against them.
    'oas3-unused-component': 'off',
  },
  overrides: [
    {
      // GET /openapi.json is public on purpose (API explorers load it without a credential) and
      // reads no input: there is no 401 or 400 for it to answer.
      files: ['openapi.json#/paths/~1openapi.json'],
      rules: {
        'owasp:api2:2023-read-restricted': 'off',
        'owasp:api8:2023-define-error-responses-401': 'off',
        'owasp:api8:2023-define-error-validation': 'off',
      },
    },
  ],
};
