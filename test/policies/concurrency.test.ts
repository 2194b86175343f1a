import { describe, expect, it } from "vitest";
import { agentLoop } from "../../src/index.js";
import type { AgentEvent, ToolResultMessage } from "../../src/types.js";
import { baseConfig, collect, mockStream, user } from "../helpers/mock-stream.js";
import { echoTool } from "../helpers/tools.js";

const results = (messages: unknown[]) => messages.filter((message): message is ToolResultMessage => (message as { role?: string }).role === "toolResult");
// Later calls finish sooner, so completion order differs from source order.
const calls = (count: number, name = "echo") =>
  Array.from({ length: count }, (_, index) => ({ id: `c${index + 1}`, name, arguments: { text: `t${index + 1}`, delayMs: (count - index) * 3 } }));

describe("per-tool concurrency and maxParallelCalls", () => {
  it("runs at most two of eight parallel calls of a concurrency-2 tool at once, results in source order", async () => {
    const echo = echoTool();
    echo.tool.concurrency = 2;
    const stream = mockStream([{ calls: calls(8) }, { text: "done" }]);
    const { events, result } = await collect(agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [echo.tool] }, baseConfig(), undefined, stream));
    expect(echo.calls).toHaveLength(8);
    expect(echo.maxRunning()).toBe(2);
    expect(results(result).map((message) => message.toolCallId)).toEqual(["c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8"]);
    // Every call is announced (prepared in source order) before any ends.
    const kinds = events.filter((event) => event.type.startsWith("tool_execution")).map((event) => event.type);
    expect(kinds.slice(0, 8).every((kind) => kind === "tool_execution_start")).toBe(true);
    expect(events.at(-1)).toMatchObject({ exitReason: "completed" });
  });

  it("caps the whole batch with maxParallelCalls, across tools", async () => {
    const a = echoTool({ name: "a" });
    const b = echoTool({ name: "b" });
    let running = 0;
    let peak = 0;
    for (const tool of [a.tool, b.tool]) {
      const execute = tool.execute.bind(tool);
      tool.execute = async (...args) => {
        running += 1;
        peak = Math.max(peak, running);
        try {
          return await execute(...args);
        } finally {
          running -= 1;
        }
      };
    }
    const stream = mockStream([{ calls: [...calls(3, "a"), ...calls(3, "b").map((call) => ({ ...call, id: `b${call.id}` }))] }, { text: "done" }]);
    const { result } = await collect(
      agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [a.tool, b.tool] }, baseConfig({ maxParallelCalls: 3 }), undefined, stream),
    );
    expect(peak).toBe(3);
    expect(results(result).map((message) => message.toolCallId)).toEqual(["c1", "c2", "c3", "bc1", "bc2", "bc3"]);
  });

  it("an abort while calls wait for room cancels them: none of the waiting ones starts", async () => {
    const echo = echoTool();
    echo.tool.concurrency = 1;
    const controller = new AbortController();
    const stream = mockStream([{ calls: calls(4) }, { text: "never" }]);
    const run = agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [echo.tool] }, baseConfig(), controller.signal, stream);
    const events: AgentEvent[] = [];
    for await (const event of run) {
      events.push(event);
      if (event.type === "tool_execution_end" && event.toolCallId === "c1") controller.abort();
    }
    // c2 got c1's room as c1 settled, before the abort; c3 and c4 were still waiting.
    expect(echo.calls.map((call) => call.id)).toEqual(["c1", "c2"]);
    expect(results(await run.result())).toHaveLength(4);
    expect(events.at(-1)).toMatchObject({ exitReason: "aborted" });
  });
});
