import { trace } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { telemetryFor } from "../../src/inspection/telemetry.js";
import { recordSampleRun } from "../support/sample-trace-run.js";

const parentOf = (span: ReadableSpan): string | undefined =>
  (span as unknown as { parentSpanContext?: { spanId: string } }).parentSpanContext?.spanId ??
  (span as unknown as { parentSpanId?: string }).parentSpanId;

describe("OpenTelemetry spans", () => {
  it("costs nothing when no tracer provider is registered", () => {
    expect(telemetryFor()).toBeUndefined();
  });

  describe("with a registered provider", () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    beforeAll(() => void trace.setGlobalTracerProvider(provider));
    afterAll(() => trace.disable());

    it("nests run > turn > (model request | tool call) with attributes and error status", async () => {
      await recordSampleRun(join(await mkdtemp(join(tmpdir(), "loopchart-otel-")), "run.jsonl"));
      const spans = exporter.getFinishedSpans();
      const byName = (name: string) => spans.filter((s) => s.name === name);
      const [run] = byName("agent.run");
      expect(run).toBeDefined();
      const turns = byName("agent.turn");
      expect(turns).toHaveLength(3);
      for (const turn of turns) expect(parentOf(turn)).toBe(run.spanContext().spanId);
      const turnIds = new Set(turns.map((t) => t.spanContext().spanId));
      const requests = byName("gen_ai.request");
      expect(requests).toHaveLength(3);
      for (const request of requests) {
        expect(turnIds.has(parentOf(request) ?? "")).toBe(true);
        expect(request.attributes["gen_ai.request.model"]).toBe("sample");
        expect(request.attributes["gen_ai.system"]).toBe("scripted");
        expect(typeof request.attributes["gen_ai.usage.output_tokens"]).toBe("number");
      }
      const tools = byName("tool.call");
      expect(tools.map((t) => t.attributes["tool.call.id"]).sort()).toEqual(["call_a", "call_b", "call_c", "call_d"]);
      const firstTurn = parentOf(tools.find((t) => t.attributes["tool.call.id"] === "call_a") as ReadableSpan);
      for (const id of ["call_b", "call_c"]) expect(parentOf(tools.find((t) => t.attributes["tool.call.id"] === id) as ReadableSpan)).toBe(firstTurn);
      const failed = tools.find((t) => t.attributes["tool.call.id"] === "call_b") as ReadableSpan;
      expect(failed.attributes["tool.is_error"]).toBe(true);
      expect(failed.status.code).toBe(2);
      const ok = tools.find((t) => t.attributes["tool.call.id"] === "call_a") as ReadableSpan;
      expect(ok.attributes["tool.is_error"]).toBe(false);
      expect(ok.status.code).not.toBe(2);
      expect(typeof ok.attributes["tool.duration_ms"]).toBe("number");
    });
  });
});
