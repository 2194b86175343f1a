import { trace } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAgentLoop } from "../../src/index.js";
import { telemetryFor } from "../../src/inspection/telemetry.js";
import { createScriptedModel } from "../../src/providers/scripted.js";
import { recordSampleRun } from "../support/sample-trace-run.js";
import { tempDir } from "../support/temp-dir.js";

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
      await recordSampleRun(join(await tempDir("loopchart-otel-"), "run.jsonl"));
      const spans = exporter.getFinishedSpans();
      const byName = (name: string) => spans.filter((s) => s.name === name);
      const [run] = byName("agent.run");
      expect(run).toBeDefined();
      expect(parentOf(run)).toBeUndefined();
      expect(run.attributes["agent.exit_reason"]).toBe("completed");
      expect(run.status.code).not.toBe(2);
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
        expect(typeof request.attributes["gen_ai.usage.input_tokens"]).toBe("number");
      }
      const tools = byName("tool.call");
      expect(tools.map((t) => t.attributes["tool.call.id"]).sort()).toEqual(["call_a", "call_b", "call_c", "call_d"]);
      const firstTurn = parentOf(tools.find((t) => t.attributes["tool.call.id"] === "call_a") as ReadableSpan);
      for (const id of ["call_b", "call_c"]) expect(parentOf(tools.find((t) => t.attributes["tool.call.id"] === id) as ReadableSpan)).toBe(firstTurn);
      // The length-truncated response's call belongs to the second turn.
      const cut = tools.find((t) => t.attributes["tool.call.id"] === "call_d") as ReadableSpan;
      expect(turnIds.has(parentOf(cut) ?? "")).toBe(true);
      expect(parentOf(cut)).not.toBe(firstTurn);
      expect(cut.attributes["tool.is_error"]).toBe(true);
      expect(tools.map((t) => t.attributes["tool.name"]).sort()).toEqual(["echo", "echo", "echo", "fail"]);
      const failed = tools.find((t) => t.attributes["tool.call.id"] === "call_b") as ReadableSpan;
      expect(failed.attributes["tool.is_error"]).toBe(true);
      expect(failed.status.code).toBe(2);
      const ok = tools.find((t) => t.attributes["tool.call.id"] === "call_a") as ReadableSpan;
      expect(ok.attributes["tool.is_error"]).toBe(false);
      expect(ok.status.code).not.toBe(2);
      expect(typeof ok.attributes["tool.duration_ms"]).toBe("number");
    });

    it("marks a failed model request and its run with error status", async () => {
      exporter.reset();
      const scripted = createScriptedModel({ name: "broken", responses: [{ content: [], stopReason: "error", errorMessage: "upstream 500" }] });
      await runAgentLoop(
        [{ role: "user", content: "go", timestamp: Date.now() }],
        { systemPrompt: "", messages: [], tools: [] },
        { model: scripted.model, convertToLlm: (all) => all as never },
        () => {},
        undefined,
        scripted.streamFn,
      );
      const spans = exporter.getFinishedSpans();
      const run = spans.find((s) => s.name === "agent.run") as ReadableSpan;
      const request = spans.find((s) => s.name === "gen_ai.request") as ReadableSpan;
      expect(run.status.code).toBe(2);
      expect(run.attributes["agent.exit_reason"]).toBe("error");
      expect(request.status).toMatchObject({ code: 2, message: "upstream 500" });
      const turn = spans.find((s) => s.spanContext().spanId === parentOf(request)) as ReadableSpan;
      expect(turn.name).toBe("agent.turn");
      expect(parentOf(turn)).toBe(run.spanContext().spanId);
    });
  });
});
