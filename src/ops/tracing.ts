import {
  context,
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  trace,
  type Attributes,
  type Link,
  type Span,
  type SpanContext,
  type TextMapGetter,
  type Tracer,
} from '@opentelemetry/api';

/**
 * The service's own spans: one server span per request (its parent the proxy's `traceparent` when
 * the proxy is trusted), the pipeline's steps and the operations; the instrumentations started by
 * the preload (src/ops/tracing-start.ts) add HTTP calls out, SQL statements, Redis commands and
 * GraphQL's phases under them, through the active context (an AsyncLocalStorage).
 *
 * Null until the preload starts the SDK: every function here then runs its work as it is, with
 * no span, no context and no OpenTelemetry call.
 */
let tracer: Tracer | null = null;
let shutdown: () => Promise<void> = () => Promise.resolve();

/** Called by the preload once the SDK runs; `stop` sends the spans still batched. */
export function startTracer(stop: () => Promise<void>): void {
  tracer = trace.getTracer('workmgmt');
  shutdown = stop;
}

/** Sends the spans still batched and stops the SDK (the app's close); nothing when tracing is off. */
export function stopTracing(): Promise<void> {
  const stop = shutdown;
  shutdown = () => Promise.resolve();
  return stop();
}

export const tracingOn = (): boolean => tracer !== null;

function ended(span: Span, error: unknown): never {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
  throw error;
}

/**
 * The W3C `traceparent` of the active span when it is sampled, for work done later on its behalf
 * to link back to (a webhook delivery, src/webhooks/worker.ts): kept with that work, it outlives
 * the process. Null when tracing is off, outside any span, or when the trace is not recorded.
 */
export function currentTraceparent(): string | null {
  if (!tracer) return null;
  const span = trace.getActiveSpan()?.spanContext();
  if (!span || !isSpanContextValid(span) || (span.traceFlags & TraceFlags.SAMPLED) === 0) return null;
  return `00-${span.traceId}-${span.spanId}-0${TraceFlags.SAMPLED}`;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** A span link to the span a kept `traceparent` names (currentTraceparent); none when it is not one. */
function linksTo(traceparent: string | null | undefined): Link[] {
  const parts = traceparent ? TRACEPARENT.exec(traceparent) : null;
  if (!parts) return [];
  const linked: SpanContext = {
    traceId: parts[1]!,
    spanId: parts[2]!,
    traceFlags: Number.parseInt(parts[3]!, 16),
    isRemote: true,
  };
  return isSpanContextValid(linked) ? [{ context: linked }] : [];
}

/**
 * `run` inside a span `name` when tracing is on; else `run()` alone. The span is a child of the
 * active one, or with `root` the first of a trace of its own (work no request waits for, such as
 * a webhook delivery, which would otherwise hang under whichever request woke its worker); with
 * `linkedTo`, a `traceparent` kept by currentTraceparent, it carries a span link to that span
 * (the request the work was done for: links are how OpenTelemetry relates asynchronous work).
 */
export function inSpan<T>(
  name: string,
  attributes: Attributes,
  run: () => Promise<T>,
  { root = false, linkedTo }: { root?: boolean; linkedTo?: string | null } = {},
): Promise<T> {
  if (!tracer) return run();
  return tracer.startActiveSpan(name, { attributes, root, links: linksTo(linkedTo) }, (span) =>
    run().then(
      (value) => {
        span.end();
        return value;
      },
      (error: unknown) => ended(span, error),
    ),
  );
}

/** `run` outside any trace when tracing is on: work a request sets off but does not wait for (a woken worker). */
export function outsideTraces<T>(run: () => T): T {
  return tracer ? context.with(ROOT_CONTEXT, run) : run();
}

/**
 * A pipeline step (src/pipeline/pipeline.ts) as a span `step <name>` that ends when the step hands
 * the request on (`next`) or answers: the steps after it are its siblings, not its children, so
 * each span is one step's own time. Work the step starts before handing on (a rate-limit
 * admission's Redis call) is its child.
 */
export function traceStep<R, A>(
  name: string,
  step: (request: R, next: () => Promise<A>) => Promise<A>,
): (request: R, next: () => Promise<A>) => Promise<A> {
  return (request, next) => {
    if (!tracer) return step(request, next);
    const parent = context.active();
    const span = tracer.startSpan(`step ${name}`, {}, parent);
    let open = true;
    const close = () => {
      if (open) span.end();
      open = false;
    };
    return context
      .with(trace.setSpan(parent, span), () =>
        step(request, () => {
          close();
          return context.with(parent, next);
        }),
      )
      .then(
        (value) => {
          close();
          return value;
        },
        (error: unknown) => (open ? ended(span, error) : Promise.reject(error)),
      );
  };
}

const headerGetter: TextMapGetter<Headers> = {
  keys: (headers) => [...headers.keys()],
  get: (headers, key) => headers.get(key) ?? undefined,
};

/** What the ops layer knows of a request's trace once it is answered. */
export interface RequestTrace {
  /** The trace's id (32 hex digits), for the access log and problem bodies. */
  traceId: string;
  /** Names the span for its route template and records the answer's status. */
  finish(route: string, status: number): void;
}

/**
 * The server span of a request, with `serve` run inside it; `serve` gets null (and no span is
 * made) when tracing is off. The `traceparent` (and `tracestate`) a request carries is the span's
 * parent only when `trustProxy`: behind our own proxy it is the load balancer's trace; from a
 * client on the open internet it would let anyone pick our trace ids or force sampling, so the
 * trace starts here instead.
 */
export function traceRequest(
  request: Request,
  trustProxy: boolean,
  serve: (trace: RequestTrace | null) => Promise<Response>,
): Promise<Response> {
  if (!tracer) return serve(null);
  const parent = trustProxy ? propagation.extract(ROOT_CONTEXT, request.headers, headerGetter) : ROOT_CONTEXT;
  const url = new URL(request.url);
  const span = tracer.startSpan(
    request.method,
    {
      kind: SpanKind.SERVER,
      // The path without its query string, which can hold a one-time token (the setup link).
      attributes: {
        'http.request.method': request.method,
        'url.path': url.pathname,
        'url.scheme': url.protocol.slice(0, -1),
      },
    },
    parent,
  );
  const requestTrace: RequestTrace = {
    traceId: span.spanContext().traceId,
    finish(route, status) {
      span.updateName(`${request.method} ${route}`);
      span.setAttributes({ 'http.route': route, 'http.response.status_code': status });
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    },
  };
  return context
    .with(trace.setSpan(parent, span), () => serve(requestTrace))
    .then(
      (response) => {
        span.end();
        return response;
      },
      (error: unknown) => ended(span, error),
    );
}
