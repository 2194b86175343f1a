/**
 * The OpenTelemetry types loopchart's declarations write out (src/inspection/telemetry-types.ts,
 * so that its declarations do not need the optional @opentelemetry/api) accept the real API:
 * checked by `npm run typecheck`, and a sink given a real tracer and the real module records spans.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import * as otel from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { createTelemetrySink } from "../../src/index.js";
import type { TelemetryApi, TelemetryTracer } from "../../src/inspection/telemetry-types.js";

describe("the OpenTelemetry types loopchart declares", () => {
  it("take OpenTelemetry's Tracer and the @opentelemetry/api module", () => {
    expectTypeOf<otel.Tracer>().toExtend<TelemetryTracer>();
    expectTypeOf<typeof otel>().toExtend<TelemetryApi>();
  });

  it("a sink given a real tracer and the real module ends a run's span with its exit reason", () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const sink = createTelemetrySink(provider.getTracer("test"), otel);
    sink({ type: "agent_start" });
    sink({ type: "agent_end", messages: [], exitReason: "completed" });
    const [run] = exporter.getFinishedSpans();
    expect(run?.name).toBe("agent.run");
    expect(run?.attributes["agent.exit_reason"]).toBe("completed");
  });
});
