import { describe, expect, it } from "vitest";
import { Type } from "typebox";
import { agentLoop, BLOCKED_MESSAGE } from "../../src/index.js";
import type { AgentEvent, AgentTool, ToolResultMessage } from "../../src/types.js";
import { baseConfig, collect, mockStream, user } from "../helpers/mock-stream.js";
import { echoTool, text } from "../helpers/tools.js";

const counterParameters = Type.Object({ count: Type.Number(), label: Type.Optional(Type.String()) });

function counterTool(overrides: Partial<AgentTool<typeof counterParameters>> = {}) {
  const seen: unknown[] = [];
  const tool: AgentTool<typeof counterParameters> = {
    name: "counter",
    label: "Counter",
    description: "Counts",
    parameters: counterParameters,
    async execute(_id, args) {
      seen.push(args);
      return text(`count=${args.count}`);
    },
    ...overrides,
  };
  return { tool, seen };
}

async function runOneCall(tool: AgentTool, args: Record<string, unknown>, config = baseConfig()) {
  const stream = mockStream([{ calls: [{ id: "c1", name: tool.name, arguments: args }] }, { text: "done" }]);
  const { events, result } = await collect(
    agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [tool] }, config, undefined, stream),
  );
  const toolResult = result.find((m) => (m as { role: string }).role === "toolResult") as ToolResultMessage;
  return { events, result, toolResult, stream };
}

const resultText = (message: ToolResultMessage) =>
  message.content.map((block) => (block.type === "text" ? block.text : "")).join("");

describe("a tool call's path", () => {
  it("answers an unknown tool with an error result and continues", async () => {
    const { tool } = echoTool();
    const stream = mockStream([{ calls: [{ id: "c1", name: "nope", arguments: {} }] }, { text: "ok" }]);
    const { result, events } = await collect(
      agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [tool] }, baseConfig(), undefined, stream),
    );
    const toolResult = result[2] as ToolResultMessage;
    expect(toolResult).toMatchObject({ role: "toolResult", toolCallId: "c1", toolName: "nope", isError: true });
    expect(resultText(toolResult)).toBe("Tool nope not found");
    expect(events.filter((e) => e.type === "tool_execution_start")).toHaveLength(1);
    expect(stream.requests).toHaveLength(2);
  });

  it('coerces "3" to 3 before execute', async () => {
    const { tool, seen } = counterTool();
    const { toolResult } = await runOneCall(tool, { count: "3" });
    expect(seen).toEqual([{ count: 3 }]);
    expect(toolResult.isError).toBe(false);
  });

  it("rejects invalid arguments with a text naming the tool, each failing path and the received JSON", async () => {
    const { tool, seen } = counterTool();
    const { toolResult } = await runOneCall(tool, { count: "many", label: 7 });
    expect(seen).toEqual([]);
    expect(toolResult.isError).toBe(true);
    const message = resultText(toolResult);
    expect(message).toContain('"counter"');
    expect(message).toContain("/count");
    expect(message).toContain('"count": "many"');
  });

  it("applies prepareArguments before validation", async () => {
    const { tool, seen } = counterTool({
      prepareArguments: (raw) => {
        const legacy = raw as { n?: unknown };
        return { count: Number(legacy.n) };
      },
    });
    await runOneCall(tool, { n: "5" });
    expect(seen).toEqual([{ count: 5 }]);
  });

  it("blocks with the default text when beforeToolCall gives no reason", async () => {
    const { tool, seen } = counterTool();
    const { toolResult } = await runOneCall(tool, { count: 1 }, baseConfig({ beforeToolCall: async () => ({ block: true }) }));
    expect(seen).toEqual([]);
    expect(toolResult.isError).toBe(true);
    expect(resultText(toolResult)).toBe(BLOCKED_MESSAGE);
  });

  it("blocks with the hook's reason, and a blocked result may terminate the run", async () => {
    const { tool } = counterTool();
    const { toolResult, events, stream } = await runOneCall(
      tool,
      { count: 1 },
      baseConfig({ beforeToolCall: async () => ({ block: true, reason: "not allowed here", terminate: true }) }),
    );
    expect(resultText(toolResult)).toBe("not allowed here");
    expect(events.at(-1)).toMatchObject({ type: "agent_end", exitReason: "terminated" });
    expect(stream.requests).toHaveLength(1);
  });

  it("executes arguments as the hook mutated them, without revalidation", async () => {
    const { tool, seen } = counterTool();
    await runOneCall(
      tool,
      { count: 1 },
      baseConfig({
        beforeToolCall: async ({ args }) => {
          (args as { count: unknown }).count = "not a number any more";
          return undefined;
        },
      }),
    );
    expect(seen).toEqual([{ count: "not a number any more" }]);
  });

  it("gives beforeToolCall the assistant message, the raw call, the validated args and the context", async () => {
    const { tool } = counterTool();
    let captured: unknown;
    await runOneCall(
      tool,
      { count: "2" },
      baseConfig({
        beforeToolCall: async (context) => {
          captured = context;
          return undefined;
        },
      }),
    );
    expect(captured).toMatchObject({
      assistantMessage: { role: "assistant" },
      toolCall: { id: "c1", name: "counter", arguments: { count: "2" } },
      args: { count: 2 },
      context: { systemPrompt: "", tools: [tool] },
    });
  });

  it("turns a throwing tool into an error result carrying the message", async () => {
    const { tool } = counterTool({
      execute: async () => {
        throw new Error("disk on fire");
      },
    });
    const { toolResult, events } = await runOneCall(tool, { count: 1 });
    expect(toolResult.isError).toBe(true);
    expect(resultText(toolResult)).toBe("disk on fire");
    const end = events.find((e) => e.type === "tool_execution_end");
    expect(end).toMatchObject({ isError: true });
  });

  it("turns a throwing afterToolCall into an error result", async () => {
    const { tool } = counterTool();
    const { toolResult } = await runOneCall(
      tool,
      { count: 1 },
      baseConfig({
        afterToolCall: async () => {
          throw new Error("audit failed");
        },
      }),
    );
    expect(toolResult.isError).toBe(true);
    expect(resultText(toolResult)).toBe("audit failed");
  });

  it("applies afterToolCall overrides field by field, without deep merge", async () => {
    const { tool } = counterTool({
      execute: async () => ({ content: [{ type: "text", text: "original" }], details: { a: 1, b: 2 } }),
    });
    const { toolResult, events } = await runOneCall(
      tool,
      { count: 1 },
      baseConfig({ afterToolCall: async ({ result }) => ({ details: { b: 3 }, isError: true, content: [...result.content, { type: "text", text: "+note" }] }) }),
    );
    expect(toolResult.details).toEqual({ b: 3 });
    expect(toolResult.isError).toBe(true);
    expect(resultText(toolResult)).toBe("original+note");
    const end = events.find((e) => e.type === "tool_execution_end");
    expect(end).toMatchObject({ isError: true, result: { details: { b: 3 } } });

    const keep = await runOneCall(tool, { count: 1 }, baseConfig({ afterToolCall: async () => ({ isError: false }) }));
    expect(keep.toolResult.details).toEqual({ a: 1, b: 2 });
    expect(resultText(keep.toolResult)).toBe("original");
  });

  it("emits tool_execution_update per onUpdate and ignores updates after the call settled", async () => {
    let late: (() => void) | undefined;
    const { tool } = counterTool({
      execute: async (_id, _args, _signal, onUpdate) => {
        onUpdate?.(text("25%"));
        onUpdate?.(text("50%"));
        late = () => onUpdate?.(text("too late"));
        return text("100%");
      },
    });
    const stream = mockStream([{ calls: [{ id: "c1", name: "counter", arguments: { count: 1 } }] }, { text: "done" }]);
    const events: AgentEvent[] = [];
    const run = agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [tool] }, baseConfig(), undefined, stream);
    for await (const event of run) {
      events.push(event);
      if (event.type === "tool_execution_end") late?.();
    }
    const updates = events.filter((e) => e.type === "tool_execution_update");
    expect(updates.map((e) => e.type === "tool_execution_update" && e.partialResult.content[0])).toEqual([
      { type: "text", text: "25%" },
      { type: "text", text: "50%" },
    ]);
    const order = events.map((e) => e.type).filter((t) => t.startsWith("tool_execution"));
    expect(order).toEqual(["tool_execution_start", "tool_execution_update", "tool_execution_update", "tool_execution_end"]);
  });

  it("never sends a null content to the model when a tool returns none", async () => {
    const { tool } = counterTool({ execute: async () => ({ details: {} }) as never });
    const { toolResult } = await runOneCall(tool, { count: 1 });
    // A result without a content array is the tool's fault: an error result that says so, never null content.
    expect(toolResult.isError).toBe(true);
    expect(Array.isArray(toolResult.content)).toBe(true);
    expect((toolResult.content[0] as { text: string }).text).toContain("returned");
  });
});
