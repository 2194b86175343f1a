/**
 * pi-agent-core 1.x's additions to a tool call's outcome, as loopchart emits them:
 * `durationMs` on `tool_execution_end` and on the result message.
 */
import { describe, expect, it } from "vitest";
import { Type } from "typebox";
import { agentLoop } from "../../src/index.js";
import type { AgentEvent, AgentTool, AgentToolResult, ToolResultMessage } from "../../src/types.js";
import { baseConfig, collect, mockStream, user } from "../helpers/mock-stream.js";
import { text } from "../helpers/tools.js";

const noParameters = Type.Object({});

function tool(name: string, execute: AgentTool<typeof noParameters>["execute"]): AgentTool<typeof noParameters> {
  return { name, label: name, description: name, parameters: noParameters, execute };
}

async function runCalls(tools: AgentTool[], calls: { id: string; name: string; arguments?: Record<string, unknown> }[], config = baseConfig()) {
  const stream = mockStream([{ calls: calls.map((call) => ({ arguments: {}, ...call })) }, { text: "done" }]);
  const { events, result } = await collect(agentLoop([user("go")], { systemPrompt: "", messages: [], tools }, config, undefined, stream));
  const ends = new Map(
    events
      .filter((event): event is Extract<AgentEvent, { type: "tool_execution_end" }> => event.type === "tool_execution_end")
      .map((event) => [event.toolCallId, event]),
  );
  const results = new Map(
    result.filter((m): m is ToolResultMessage => (m as { role: string }).role === "toolResult").map((m) => [m.toolCallId, m]),
  );
  return { events, result, ends, results, stream };
}

/** Spins on the monotonic clock for at least `ms` milliseconds. */
function spin(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy: the point is time passing on the same clock the loop reads
  }
}

describe("durationMs (pi-agent-core 1.x)", () => {
  it("reports how long execute took, on tool_execution_end and on the result message, bounded by what the caller measured", async () => {
    const outer: { start?: number; end?: number } = {};
    const slow = tool("slow", async () => {
      outer.start = performance.now();
      spin(6);
      outer.end = performance.now();
      return text("ok");
    });
    const before = performance.now();
    const { ends, results } = await runCalls([slow], [{ id: "c1", name: "slow" }]);
    const after = performance.now();
    const end = ends.get("c1");
    expect(end?.durationMs).toBeTypeOf("number");
    // The tool spun for at least 6 ms inside execute, and execute ran within the run.
    expect(end?.durationMs).toBeGreaterThanOrEqual(6);
    expect(end?.durationMs).toBeLessThanOrEqual(Math.ceil(after - before));
    expect(Number.isInteger(end?.durationMs)).toBe(true);
    expect(results.get("c1")?.durationMs).toBe(end?.durationMs);
  });

  it("is measured for a tool that throws and for one whose result is malformed", async () => {
    const throws = tool("throws", async () => {
      spin(2);
      throw new Error("boom");
    });
    const malformed = tool("malformed", async () => "not a result" as unknown as AgentToolResult<unknown>);
    const { ends } = await runCalls([throws, malformed], [
      { id: "t", name: "throws" },
      { id: "m", name: "malformed" },
    ]);
    expect(ends.get("t")).toMatchObject({ isError: true });
    expect(ends.get("t")?.durationMs).toBeGreaterThanOrEqual(2);
    expect(ends.get("m")).toMatchObject({ isError: true });
    expect(ends.get("m")?.durationMs).toBeTypeOf("number");
  });

  it("is absent when the tool did not run: unknown tool, invalid arguments, blocked, length-truncated", async () => {
    const strict = { ...tool("strict", async () => text("ran")), parameters: Type.Object({ n: Type.Number() }) } as AgentTool;
    const blockedTool = tool("gated", async () => text("ran"));
    const config = baseConfig({
      beforeToolCall: async ({ toolCall }) => (toolCall.name === "gated" ? { block: true } : undefined),
    });
    const { ends, results } = await runCalls(
      [strict, blockedTool],
      [
        { id: "u", name: "unknown" },
        { id: "i", name: "strict", arguments: { n: "not a number" } },
        { id: "b", name: "gated" },
      ],
      config,
    );
    for (const id of ["u", "i", "b"]) {
      expect(ends.get(id)?.isError).toBe(true);
      expect(ends.get(id)).not.toHaveProperty("durationMs");
      expect(results.get(id)).not.toHaveProperty("durationMs");
    }

    const truncated = mockStream([{ calls: [{ id: "x", name: "strict", arguments: { n: 1 } }], stopReason: "length" }, { text: "done" }]);
    const run = await collect(agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [strict] }, baseConfig(), undefined, truncated));
    const end = run.events.find((event) => event.type === "tool_execution_end");
    expect(end).toMatchObject({ isError: true });
    expect(end).not.toHaveProperty("durationMs");
  });

  it("keeps the tool's duration through afterToolCall (the hook's time is not the tool's)", async () => {
    const quick = tool("quick", async () => text("ok"));
    let hookStartedAt = 0;
    const config = baseConfig({
      afterToolCall: async () => {
        hookStartedAt = performance.now();
        spin(30);
        return { content: [{ type: "text", text: "rewritten" }] };
      },
    });
    const before = performance.now();
    const { ends } = await runCalls([quick], [{ id: "q", name: "quick" }], config);
    const durationMs = ends.get("q")?.durationMs;
    expect(durationMs).toBeTypeOf("number");
    // execute ended before the hook began; counting the hook's 30 ms would exceed this bound.
    expect(durationMs).toBeLessThanOrEqual(Math.ceil(hookStartedAt - before));
    expect(ends.get("q")?.result.content).toEqual([{ type: "text", text: "rewritten" }]);
  });
});
