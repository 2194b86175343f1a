/**
 * The part of OpenTelemetry's API loopchart's spans use, written out instead of imported
 * from `@opentelemetry/api`: that package is an optional peer dependency (a project without
 * it could not type-check loopchart's declarations with `skipLibCheck: false`), and its
 * declarations are some fifty files a user who wants no telemetry would load. The real
 * `Tracer` and the module `@opentelemetry/api` are assignable to these
 * (`test/inspection/telemetry-types.test.ts`).
 */

/** A span context (OpenTelemetry `Context`), passed back to the API as it came. */
export type TelemetryContext = object;

/** Attribute values loopchart sets. */
export type TelemetryAttributes = Record<string, string | number | boolean | string[]>;

/** A span (OpenTelemetry `Span`): what loopchart calls on it. */
export interface TelemetrySpan {
  setAttributes(attributes: TelemetryAttributes): unknown;
  setAttribute(key: string, value: string): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  end(): void;
}

/** A tracer (OpenTelemetry `Tracer`). */
export interface TelemetryTracer {
  startSpan(name: string, options?: object, context?: TelemetryContext): TelemetrySpan;
}

/** The module `@opentelemetry/api`: the parts loopchart calls. */
export interface TelemetryApi {
  trace: {
    setSpan(context: TelemetryContext, span: TelemetrySpan): TelemetryContext;
    getTracer(name: string): TelemetryTracer;
    getTracerProvider(): unknown;
  };
  context: { active(): TelemetryContext };
  SpanStatusCode: { ERROR: number };
}
