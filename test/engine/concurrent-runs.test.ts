import { describe, expect, it } from "vitest";
import { agentLoop } from "../../src/index.js";
import type { AgentEvent, ToolResultMessage } from "../../src/types.js";
import { baseConfig, collect, mockStream, user } from "../helpers/mock-stream.js";
import { echoTool } from "../helpers/tools.js";

/**
 * Every run of a process shares one provided machine; each finds its own
 * services (tools, stream, hooks, signal) and listener by its own actor system.
 * Runs that overlap must not see each other's.
 */
describe("runs at the same time in one process", () => {
  it("each uses its own tools, stream, hooks and abort signal, and hears only its own events", async () => {
    const first = echoTool({ name: "echo" });
    const second = echoTool({ name: "echo" });
    const seenByHook: string[] = [];
    const controller = new AbortController();
    const slowCalls = [
      { id: "a1", name: "echo", arguments: { text: "one", delayMs: 30 } },
      { id: "a2", name: "echo", arguments: { text: "two", delayMs: 5 } },
    ];
    const runA = collect(
      agentLoop([user("first")], { systemPrompt: "A", messages: [], tools: [first.tool] }, baseConfig(), undefined, mockStream([{ calls: slowCalls }, { text: "A done" }])),
    );
    const runB = collect(
      agentLoop(
        [user("second")],
        { systemPrompt: "B", messages: [], tools: [second.tool] },
        baseConfig({ beforeToolCall: async ({ toolCall }) => void seenByHook.push(toolCall.id) }),
        undefined,
        mockStream([{ calls: [{ id: "b1", name: "echo", arguments: { text: "three" } }] }, { text: "B done" }]),
      ),
    );
    const stopped = agentLoop(
      [user("third")],
      { systemPrompt: "C", messages: [], tools: [echoTool().tool] },
      // The echo tool ignores its signal: the run stops waiting for it after the grace period.
      baseConfig({ abortGraceMs: 20 }),
      controller.signal,
      mockStream([{ calls: [{ id: "c1", name: "echo", arguments: { text: "never", delayMs: 10_000 } }] }, { text: "C done" }]),
    );
    const stoppedEvents: AgentEvent[] = [];
    const runC = (async () => {
      for await (const event of stopped) {
        stoppedEvents.push(event);
        if (event.type === "tool_execution_start") controller.abort();
      }
    })();
    const [a, b] = await Promise.all([runA, runB, runC]);

    expect(first.calls.map((call) => call.id)).toEqual(["a1", "a2"]);
    expect(second.calls.map((call) => call.id)).toEqual(["b1"]);
    expect(seenByHook).toEqual(["b1"]);
    const ids = (events: AgentEvent[]) => [...new Set(events.flatMap((event) => ("toolCallId" in event ? [event.toolCallId] : [])))];
    expect(ids(a.events)).toEqual(["a1", "a2"]);
    expect(ids(b.events)).toEqual(["b1"]);
    expect(ids(stoppedEvents)).toEqual(["c1"]);
    const results = (messages: unknown[]) =>
      messages.flatMap((message) => ((message as { role?: string }).role === "toolResult" ? [(message as ToolResultMessage).toolCallId] : []));
    expect(results(a.result)).toEqual(["a1", "a2"]);
    expect(results(b.result)).toEqual(["b1"]);
    expect(a.events.at(-1)).toMatchObject({ type: "agent_end", exitReason: "completed" });
    expect(b.events.at(-1)).toMatchObject({ type: "agent_end", exitReason: "completed" });
    // Only the third run was aborted.
    expect(stoppedEvents.at(-1)).toMatchObject({ type: "agent_end", exitReason: "aborted" });
  });
});
