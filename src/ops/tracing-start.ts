/**
 * The tracing preload: `node --import tsx --import ./src/ops/tracing-start.ts src/server.ts` (what
 * `npm start` runs). It must run before the service's modules load, so that the instrumentations
 * can wrap `node:http`, `pg`, `ioredis` and `graphql` as they are imported; an ES module imported
 * before them is the only place that is so.
 *
 * It does nothing unless OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_TRACES_EXPORTER is set (and
 * OTEL_SDK_DISABLED is not true): then no loader hook is registered and no OpenTelemetry package
 * is loaded, so tracing that is off costs nothing (bench/tracing.ts). When on, the SDK reads the
 * standard OTEL_* variables (docs/operating.md: Traces): the exporter, its endpoint, headers and
 * protocol, the sampler, the service name and resource attributes, the batch processor's settings.
 * Traces only: the service's metrics are Prometheus' (/metrics) and its logs pino's.
 */
import { createRequire, register, syncBuiltinESMExports } from 'node:module';
import { tracingRequested } from './tracing-switch.js';

if (tracingRequested(process.env)) {
  const { createAddHookMessageChannel } = await import('import-in-the-middle');
  // Only the modules an instrumentation asks for are wrapped, not every module the service imports.
  const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
  register('import-in-the-middle/hook.mjs', import.meta.url, registerOptions);

  const [{ NodeSDK }, { HttpInstrumentation }, { PgInstrumentation }, { IORedisInstrumentation }] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/instrumentation-http'),
    import('@opentelemetry/instrumentation-pg'),
    import('@opentelemetry/instrumentation-ioredis'),
  ]);
  const [{ GraphQLInstrumentation }, { PrismaInstrumentation }, { startTracer }] = await Promise.all([
    import('@opentelemetry/instrumentation-graphql'),
    import('@prisma/instrumentation'),
    import('./tracing.js'),
  ]);
  const sdk = new NodeSDK({
    serviceName: process.env.OTEL_SERVICE_NAME ?? 'workmgmt',
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      // The server span of a request is the ops layer's (src/ops/tracing.ts), which knows the route
      // and whether the proxy is trusted with a traceparent; outgoing requests (webhook deliveries,
      // OAuth client metadata, mail over HTTP) are this instrumentation's, which sends traceparent.
      new HttpInstrumentation({ disableIncomingRequestInstrumentation: true }),
      new PgInstrumentation({ requireParentSpan: true }),
      new IORedisInstrumentation({ requireParentSpan: true }),
      // Resolver spans would be one per field of every answer: parse, validate and execute are enough.
      new GraphQLInstrumentation({ ignoreTrivialResolveSpans: true, ignoreResolveSpans: true, mergeItems: true }),
      new PrismaInstrumentation(),
    ],
  });
  sdk.start();
  // The HTTP instrumentation patches node:http and node:https when they are required; the
  // service imports them as ES modules, whose named exports (`import { request } from 'node:http'`)
  // follow the patched module only once synchronised.
  const require = createRequire(import.meta.url);
  require('node:http');
  require('node:https');
  syncBuiltinESMExports();
  // The app's close (src/app.ts) sends the spans still batched before the process exits.
  startTracer(() => sdk.shutdown());
  await waitForAllMessagesAcknowledged();
}
