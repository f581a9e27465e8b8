/**
 * Whether tracing is asked for, by the standard variables (docs/operating.md: Traces): an OTLP
 * endpoint or an exporter named, and the SDK not disabled. `OTEL_TRACES_EXPORTER=none` asks for
 * nothing. Read by the preload (src/ops/tracing-start.ts) before the service's modules load.
 */
export function tracingRequested(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporters = env.OTEL_TRACES_EXPORTER?.split(',').map((name) => name.trim().toLowerCase()) ?? [];
  if (exporters.includes('none')) return false;
  return (
    exporters.some(Boolean) ||
    Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim())
  );
}
