import { describe, expect, it } from "vitest";
import type { AnyActorRef, InspectionEvent } from "xstate";
import { agentLoop, runAgentLoop } from "../../src/index.js";
import { MAX_INSPECTED_STRING_LENGTH, sanitizeInspectionEvent, sanitizeValue } from "../../src/inspection/sanitize.js";
import { baseConfig, mockStream, user } from "../helpers/mock-stream.js";
import { echoTool } from "../helpers/tools.js";

describe("inspect in the loop's config", () => {
  it("agentLoop shows every actor of the run to config.inspect", async () => {
    const { tool } = echoTool();
    const ids = new Set<string>();
    const stream = agentLoop(
      [user("go")],
      { systemPrompt: "", messages: [], tools: [tool] },
      { ...baseConfig(), inspect: (event: InspectionEvent) => void (event.type === "@xstate.actor" && ids.add((event.actorRef as AnyActorRef).id)) },
      undefined,
      mockStream([{ calls: [{ id: "call-1", name: "echo", arguments: { text: "a" } }] }, { text: "done" }]),
    );
    await stream.result();
    // The call's actor id is its place in the batch.
    expect(ids).toContain("call@0");
    expect(ids).toContain("requestModel");
  });

  it("runAgentLoop passes config.inspect too, and sanitized snapshots are plain JSON", async () => {
    const sanitized: unknown[] = [];
    await runAgentLoop(
      [user("go")],
      { systemPrompt: "", messages: [], tools: [] },
      {
        ...baseConfig(),
        inspect: (event: InspectionEvent) => {
          const clean = sanitizeInspectionEvent(event);
          if (clean) sanitized.push(clean);
        },
      },
      () => {},
      undefined,
      mockStream([{ text: "done" }]),
    );
    expect(sanitized.some((e) => (e as { type: string }).type === "@xstate.snapshot")).toBe(true);
    expect(() => JSON.stringify(sanitized)).not.toThrow();
    expect(JSON.stringify(sanitized)).not.toContain("function");
  });
});

describe("an inspector that throws", () => {
  it("does not change the run: same events and messages, one process warning, and the inspector is told nothing more", async () => {
    const script = () => mockStream([{ calls: [{ id: "call-1", name: "echo", arguments: { text: "a" } }] }, { text: "done" }]);
    const run = async (inspect?: (event: InspectionEvent) => void) => {
      const { tool } = echoTool();
      const stream = agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [tool] }, { ...baseConfig(), ...(inspect ? { inspect } : {}) }, undefined, script());
      const types: string[] = [];
      for await (const event of stream) types.push(event.type);
      return { types, messages: (await stream.result()).map((message) => message.role) };
    };
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => void (warning.name === "LoopchartInspectorWarning" && warnings.push(warning));
    process.on("warning", onWarning);
    let calls = 0;
    try {
      const plain = await run();
      const watched = await run(() => {
        calls += 1;
        if (calls === 3) throw new Error("inspector bug");
      });
      // Warnings are delivered on a later tick.
      await new Promise((resolve) => setImmediate(resolve));
      expect(watched).toEqual(plain);
      expect(calls).toBe(3);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.message).toMatch(/inspect observer threw .*inspector bug/);
    } finally {
      process.off("warning", onWarning);
    }
  });
});

describe("sanitizeValue", () => {
  it("truncates long strings, drops functions, redacts secret fields and keys", () => {
    const out = sanitizeValue({
      long: "x".repeat(MAX_INSPECTED_STRING_LENGTH + 10),
      fn: () => 1,
      apiKey: "hunter2-secret",
      headers: { Authorization: "Bearer abc" },
      text: "key sk-abcdefghijklmnopqrstuvwxyz here",
    }) as Record<string, unknown>;
    expect(out.long).toBe(`${"x".repeat(MAX_INSPECTED_STRING_LENGTH)}… [10 more characters]`);
    expect("fn" in out).toBe(false);
    expect(out.apiKey).toBe("[REDACTED]");
    expect(out.headers).toEqual({ Authorization: "[REDACTED]" });
    expect(out.text).toBe("key [REDACTED] here");
  });

  it("replaces actor refs by their id and survives cycles", () => {
    const ref = { id: "call-1", sessionId: "x:1", send: () => {} };
    const cyclic: Record<string, unknown> = { ref };
    cyclic.self = cyclic;
    expect(sanitizeValue(cyclic)).toEqual({ ref: { actorId: "call-1" }, self: "[…]" });
  });
});
