import { getEventListeners } from "node:events";
import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import { agentLoop } from "../../src/index.js";
import type { AgentEvent, AgentTool } from "../../src/types.js";
import { baseConfig, collect, mockStream, user } from "../helpers/mock-stream.js";

const parameters = Type.Object({});

/**
 * A tool that reports a partial result, then waits for its signal; when the
 * signal aborts it reports one more partial result from the abort listener
 * (what a tool flushing its last output does) and fails.
 */
function flushingTool(options: Partial<Pick<AgentTool, "timeoutMs">> = {}) {
  const seen: { aborted: boolean; reason: unknown }[] = [];
  const tool: AgentTool<typeof parameters> = {
    name: "flush",
    label: "Flush",
    description: "Reports, waits, flushes on abort",
    parameters,
    execute: (_id, _args, signal, onUpdate) =>
      new Promise((_resolve, reject) => {
        onUpdate?.({ content: [{ type: "text", text: "working" }], details: {} });
        signal?.addEventListener("abort", () => {
          seen.push({ aborted: signal.aborted, reason: signal.reason });
          onUpdate?.({ content: [{ type: "text", text: "flushed" }], details: {} });
          reject(new Error("stopped"));
        }, { once: true });
      }),
    ...options,
  };
  return { tool, seen };
}

const updates = (events: AgentEvent[]) =>
  events.flatMap((event) => (event.type === "tool_execution_update" ? [(event.partialResult.content[0] as { text: string }).text] : []));

describe("the tool's signal under a run's signal", () => {
  it("the run's abort reaches the tool with the run's reason, and the call still reports what the tool flushes then", async () => {
    const controller = new AbortController();
    const { tool, seen } = flushingTool();
    const run = agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [tool] }, baseConfig(), controller.signal, mockStream([{ calls: [{ id: "f", name: "flush", arguments: {} }] }]));
    const reason = new Error("user pressed escape");
    const events: AgentEvent[] = [];
    for await (const event of run) {
      events.push(event);
      if (event.type === "tool_execution_update") controller.abort(reason);
    }
    expect(seen).toEqual([{ aborted: true, reason }]);
    expect(updates(events)).toEqual(["working", "flushed"]);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("a call stopped by its timeout aborts the tool with an AbortError (not a run reason), and nothing the tool reports afterwards is heard", async () => {
    const controller = new AbortController();
    const { tool, seen } = flushingTool({ timeoutMs: 10 });
    const { events } = await collect(
      agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [tool] }, baseConfig(), controller.signal, mockStream([{ calls: [{ id: "f", name: "flush", arguments: {} }] }, { text: "done" }])),
    );
    expect(seen).toHaveLength(1);
    expect(seen[0]?.reason).toBeInstanceOf(DOMException);
    expect((seen[0]?.reason as DOMException).name).toBe("AbortError");
    expect(updates(events)).toEqual(["working"]);
    // The run's signal keeps nothing of the stopped call.
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
    controller.abort("late");
    expect(seen).toHaveLength(1);
  });
});
