import type { z } from 'zod';
import type { Context } from '../../context.js';
import type { Policy } from '../../limits/policy.js';
import { inSpan, tracingOn } from '../../ops/tracing.js';
import { authorize, type Access, type OperationKind } from './access.js';
import { limitOperation } from './rate-limit.js';
import { validate } from './validate.js';

/**
 * One operation of the service, the one place its rules live: who may call it (`access`, and
 * the OAuth scope its `kind` needs), the bucket it draws from (`rateLimit`), what input it
 * takes (`input`, whose every mistake is reported at once) and what it does (`run`, which
 * filters by the principal's organization). The GraphQL field, the REST route, the CLI and
 * every later surface call it; none keeps a rule of its own.
 *
 * `Extra` is what a surface passes besides the input, such as the Prisma selection a GraphQL
 * query asks for.
 */
export interface OperationSpec<S extends z.ZodType, Out, Extra> {
  name: string;
  /** For people: the GraphQL field's and the REST route's description start from it. */
  description: string;
  kind: OperationKind;
  access: Access;
  rateLimit?: { policy: Policy; subject?: (ctx: Context) => string };
  input: S;
  /** The input's list of items, in an operation that takes many (createIssues): a mistake in one carries its index. */
  items?: readonly string[];
  run(ctx: Context, input: z.output<S>, extra: Extra): Promise<Out>;
}

export interface Operation<S extends z.ZodType = z.ZodType, Out = unknown, Extra = undefined>
  extends OperationSpec<S, Out, Extra> {
  /** The checks that come before the input is looked at: authorization, then the operation's bucket. */
  admit(ctx: Context): Promise<void>;
  /** Validates the input: every mistake at once, as one ValidationError. */
  parse(input: unknown): z.output<S>;
  /** admit, parse, run: what a surface calls. */
  call(ctx: Context, input: unknown, extra: Extra): Promise<Out>;
}

export function defineOperation<S extends z.ZodType, Out, Extra = undefined>(
  spec: OperationSpec<S, Out, Extra>,
): Operation<S, Out, Extra> {
  const spanName = `operation ${spec.name}`;
  const spanAttributes = { 'workmgmt.operation': spec.name };
  const op: Operation<S, Out, Extra> = {
    ...spec,
    async admit(ctx) {
      authorize(ctx.principal, spec.kind, spec.access);
      if (spec.rateLimit) await limitOperation(ctx, spec.rateLimit.policy, spec.rateLimit.subject?.(ctx));
    },
    parse: (input) => validate(spec.input, input, spec.items),
    // A span of its own when tracing is on (src/ops/tracing.ts), over its statements: surfaces call run.
    // Off, the call is made as it is, without a closure for a span that is not there.
    run: (ctx, input, extra) =>
      tracingOn() ? inSpan(spanName, spanAttributes, () => spec.run(ctx, input, extra)) : spec.run(ctx, input, extra),
    async call(ctx, input, extra) {
      ctx.deadline?.check();
      await op.admit(ctx);
      return op.run(ctx, op.parse(input), extra);
    },
  };
  return op;
}
