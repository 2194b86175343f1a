import { describe, expect, it } from "vitest";
import { agentLoop, LENGTH_TRUNCATION_MESSAGE } from "../../src/index.js";
import type { ToolResultMessage } from "../../src/types.js";
import { baseConfig, collect, mockStream, trace, user } from "../helpers/mock-stream.js";
import { echoTool } from "../helpers/tools.js";

const threeCalls = [
  { id: "a", name: "echo", arguments: { text: "slow", delayMs: 40 } },
  { id: "b", name: "echo", arguments: { text: "fast", delayMs: 1 } },
  { id: "c", name: "echo", arguments: { text: "mid", delayMs: 15 } },
];

describe("dispatching a batch", () => {
  it("runs calls in parallel: concurrency observed, ends in completion order, results in source order", async () => {
    const { tool, maxRunning } = echoTool();
    const stream = mockStream([{ calls: threeCalls }, { text: "done" }]);
    const { events, result } = await collect(
      agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [tool] }, baseConfig(), undefined, stream),
    );
    expect(maxRunning()).toBe(3);
    const toolEvents = trace(events).filter((t) => t.startsWith("tool_execution"));
    expect(toolEvents).toEqual([
      "tool_execution_start:a",
      "tool_execution_start:b",
      "tool_execution_start:c",
      "tool_execution_end:b",
      "tool_execution_end:c",
      "tool_execution_end:a",
    ]);
    const results = result.filter((m): m is ToolResultMessage => (m as { role: string }).role === "toolResult");
    expect(results.map((r) => r.toolCallId)).toEqual(["a", "b", "c"]);
    const resultMessageEnds = events.filter((e) => e.type === "message_end" && (e.message as { role: string }).role === "toolResult");
    expect(resultMessageEnds.map((e) => e.type === "message_end" && (e.message as ToolResultMessage).toolCallId)).toEqual(["a", "b", "c"]);
    // Result messages come after every end event in parallel mode.
    const firstResultMessage = events.findIndex((e) => e.type === "message_start" && (e.message as { role: string }).role === "toolResult");
    const lastEnd = events.map((e) => e.type).lastIndexOf("tool_execution_end");
    expect(firstResultMessage).toBeGreaterThan(lastEnd);
  });

  it("prepares every call, one at a time in source order, before any executes", async () => {
    const order: string[] = [];
    const { tool } = echoTool();
    const wrapped: typeof tool = { ...tool, execute: async (...args) => { order.push(`exec:${args[0]}`); return tool.execute(...args); } };
    const stream = mockStream([{ calls: threeCalls }, { text: "done" }]);
    await collect(
      agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [wrapped] }, baseConfig({
        beforeToolCall: async ({ toolCall }) => {
          order.push(`prep:${toolCall.id}`);
          await new Promise((resolve) => setTimeout(resolve, 2));
          return undefined;
        },
      }), undefined, stream),
    );
    expect(order).toEqual(["prep:a", "prep:b", "prep:c", "exec:a", "exec:b", "exec:c"]);
  });

  it('runs one call at a time when config.toolExecution is "sequential", appending each as it finishes', async () => {
    const { tool, maxRunning } = echoTool();
    const stream = mockStream([{ calls: threeCalls }, { text: "done" }]);
    const { events } = await collect(
      agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [tool] }, baseConfig({ toolExecution: "sequential" }), undefined, stream),
    );
    expect(maxRunning()).toBe(1);
    const batch = trace(events).filter((t) => t.startsWith("tool_execution") || t.endsWith(":toolResult"));
    expect(batch).toEqual([
      "tool_execution_start:a", "tool_execution_end:a", "message_start:toolResult", "message_end:toolResult",
      "tool_execution_start:b", "tool_execution_end:b", "message_start:toolResult", "message_end:toolResult",
      "tool_execution_start:c", "tool_execution_end:c", "message_start:toolResult", "message_end:toolResult",
    ]);
  });

  it('runs the whole batch sequentially when any of its tools declares executionMode "sequential"', async () => {
    const echo = echoTool();
    const serial = echoTool({ name: "serial", executionMode: "sequential" });
    const calls = [...threeCalls, { id: "d", name: "serial", arguments: { text: "one", delayMs: 1 } }];
    const stream = mockStream([{ calls }, { text: "done" }, { calls: threeCalls }, { text: "done" }]);
    const context = { systemPrompt: "", messages: [], tools: [echo.tool, serial.tool] };
    await collect(agentLoop([user("go")], context, baseConfig(), undefined, stream));
    expect(echo.maxRunning()).toBe(1);
    // A batch without the sequential tool runs in parallel again.
    await collect(agentLoop([user("again")], context, baseConfig(), undefined, stream));
    expect(echo.maxRunning()).toBe(3);
  });

  it("runs nothing from a length-truncated response, answers each call with an error and asks again", async () => {
    const { tool, calls } = echoTool();
    const stream = mockStream([
      { calls: [{ id: "t1", name: "echo", arguments: { text: "half" } }, { id: "t2", name: "echo", arguments: { text: "cut" } }], stopReason: "length" },
      { calls: [{ id: "t3", name: "echo", arguments: { text: "whole" } }] },
      { text: "done" },
    ]);
    const { events, result } = await collect(
      agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [tool] }, baseConfig(), undefined, stream),
    );
    expect(calls.map((c) => c.id)).toEqual(["t3"]);
    const refused = result.filter((m): m is ToolResultMessage => (m as { role: string }).role === "toolResult" && (m as ToolResultMessage).toolCallId !== "t3");
    expect(refused.map((r) => [r.toolCallId, r.isError])).toEqual([["t1", true], ["t2", true]]);
    expect(refused[0]?.content[0]).toEqual({ type: "text", text: LENGTH_TRUNCATION_MESSAGE });
    expect(LENGTH_TRUNCATION_MESSAGE).toMatch(/output token limit/);
    expect(LENGTH_TRUNCATION_MESSAGE).toMatch(/Re-issue the call with complete arguments/);
    const firstTurn = trace(events).slice(0, trace(events).indexOf("turn_end"));
    expect(firstTurn.filter((t) => t.startsWith("tool_execution"))).toEqual([
      "tool_execution_start:t1", "tool_execution_end:t1", "tool_execution_start:t2", "tool_execution_end:t2",
    ]);
    expect(stream.requests).toHaveLength(3);
    expect(events.at(-1)).toMatchObject({ exitReason: "completed" });
  });

  it("gives every call exactly one result when the model repeats a tool call id", async () => {
    const { tool } = echoTool();
    const stream = mockStream([
      { calls: [{ id: "same", name: "echo", arguments: { text: "1" } }, { id: "same", name: "echo", arguments: { text: "2" } }] },
      { text: "done" },
    ]);
    const { result } = await collect(agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [tool] }, baseConfig(), undefined, stream));
    const results = result.filter((m): m is ToolResultMessage => (m as { role: string }).role === "toolResult");
    expect(results.map((r) => r.content[0])).toEqual([{ type: "text", text: "echo: 1" }, { type: "text", text: "echo: 2" }]);
  });
  describe("a batch larger than one slice (70 calls: slices of 24, 24 and 22)", () => {
    // Later calls finish first, so completion order is the reverse of source order across groups.
    // Neighbours differ by 8 ms, so a GC pause between two calls starting cannot swap the first end.
    const seventy = Array.from({ length: 70 }, (_, index) => ({
      id: `call-${index}`,
      name: "echo",
      arguments: { text: `t${index}`, delayMs: 8 * (70 - index) },
    }));

    it("runs every call once, in parallel, and appends the results in source order", async () => {
      const { tool, maxRunning } = echoTool();
      const stream = mockStream([{ calls: seventy }, { text: "done" }]);
      const { events, result } = await collect(
        agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [tool] }, baseConfig(), undefined, stream),
      );
      expect(maxRunning()).toBe(70);
      const starts = events.flatMap((e) => (e.type === "tool_execution_start" ? [e.toolCallId] : []));
      expect(starts).toEqual(seventy.map((call) => call.id));
      const ends = events.flatMap((e) => (e.type === "tool_execution_end" ? [e.toolCallId] : []));
      expect(new Set(ends).size).toBe(70);
      expect(ends[0]).toBe("call-69");
      const results = result.filter((m): m is ToolResultMessage => (m as { role: string }).role === "toolResult");
      expect(results.map((r) => r.toolCallId)).toEqual(seventy.map((call) => call.id));
      expect(results.map((r) => (r.content[0] as { text: string }).text)).toEqual(seventy.map((call) => `echo: ${call.arguments.text}`));
    });

    it('runs them one at a time in source order when config.toolExecution is "sequential"', async () => {
      const { tool, maxRunning } = echoTool();
      const calls = seventy.map((call) => ({ ...call, arguments: { ...call.arguments, delayMs: 0 } }));
      const stream = mockStream([{ calls }, { text: "done" }]);
      const { events } = await collect(
        agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [tool] }, baseConfig({ toolExecution: "sequential" }), undefined, stream),
      );
      expect(maxRunning()).toBe(1);
      const ends = events.flatMap((e) => (e.type === "tool_execution_end" ? [e.toolCallId] : []));
      expect(ends).toEqual(calls.map((call) => call.id));
    });
  });
});
