/**
 * The loop from the core issue driving every built-in tool with a scripted model, checked
 * through the transcript the model would see on its last request.
 */
import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { agentLoop } from "../../src/index.js";
import { EventStream } from "../../src/event-stream.js";
import type { AgentEvent, AgentMessage, AssistantMessage, AssistantMessageEvent, Context, Message, Model, StreamFn, ToolCall, ToolResultMessage } from "../../src/types.js";
import { createAllTools } from "../../tools/index.js";
import { createTempWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";

const model: Model = {
  id: "scripted-1",
  name: "Scripted",
  api: "scripted",
  provider: "scripted",
  baseUrl: "",
  reasoning: false,
  input: ["text"],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 100_000,
  maxTokens: 4096,
};
const zeroUsage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };

type Turn = { text: string } | { calls: [string, Record<string, unknown>][] };

/** A model that answers each request with the next scripted turn, and records every context it was sent. */
function scriptedModel(turns: Turn[]): { streamFn: StreamFn; seen: Context[] } {
  const seen: Context[] = [];
  let callCounter = 0;
  const streamFn: StreamFn = (_model, context) => {
    seen.push(structuredClone(context));
    const turn = turns[seen.length - 1] ?? { text: "out of script" };
    const content: ToolCall[] | { type: "text"; text: string }[] =
      "text" in turn
        ? [{ type: "text", text: turn.text }]
        : turn.calls.map(([name, args]) => ({ type: "toolCall", id: `call_${++callCounter}`, name, arguments: args }));
    const message: AssistantMessage = {
      role: "assistant",
      content,
      api: model.api,
      provider: model.provider,
      model: model.id,
      usage: zeroUsage,
      stopReason: "text" in turn ? "stop" : "toolUse",
      timestamp: Date.now(),
    };
    const stream = new EventStream<AssistantMessageEvent, AssistantMessage>(
      (e) => e.type === "done" || e.type === "error",
      (e) => (e.type === "done" ? e.message : e.type === "error" ? e.error : message),
    );
    queueMicrotask(() => {
      stream.push({ type: "start", partial: { ...message, content: [] } });
      stream.push({ type: "done", reason: message.stopReason as "stop" | "toolUse", message });
    });
    return stream;
  };
  return { streamFn, seen };
}

const isToolResult = (m: Message): m is ToolResultMessage => m.role === "toolResult";
const resultText = (m: ToolResultMessage): string => m.content.map((c) => (c.type === "text" ? c.text : `[image ${c.mimeType}]`)).join("");

let ws: TempWorkspace;
beforeEach(() => {
  ws = createTempWorkspace();
});
afterEach(() => ws.cleanup());

describe("the loop with every built-in tool", () => {
  it("runs a scripted session and shows the model each tool's result", async () => {
    const { streamFn, seen } = scriptedModel([
      { calls: [["write", { path: "notes/a.txt", content: "hello\nworld\n" }]] },
      { calls: [["ls", { path: "notes" }], ["find", { pattern: "*.txt" }], ["grep", { pattern: "wor" }]] },
      { calls: [["edit", { path: "notes/a.txt", oldText: "world", newText: "loop" }]] },
      { calls: [["read", { path: "notes/a.txt" }], ["bash", { command: "wc -l < notes/a.txt; exit 4" }], ["read", { path: "nope.txt" }]] },
      { text: "All done." },
    ]);
    const events: AgentEvent[] = [];
    const stream = agentLoop(
      [{ role: "user", content: "Tidy the notes.", timestamp: Date.now() }],
      { systemPrompt: "You are a coding agent.", messages: [], tools: createAllTools(ws.dir) },
      { model, convertToLlm: (messages: AgentMessage[]) => messages as Message[] },
      undefined,
      streamFn,
    );
    for await (const event of stream) events.push(event);
    const newMessages = await stream.result();

    expect(seen).toHaveLength(5);
    expect(seen[0].tools?.map((t) => t.name)).toEqual(["read", "bash", "edit", "write", "grep", "find", "ls"]);
    const transcript = seen[4].messages.filter(isToolResult).map((m) => ({ tool: m.toolName, isError: m.isError, text: resultText(m) }));
    expect(transcript).toEqual([
      { tool: "write", isError: false, text: "Successfully wrote 12 bytes to notes/a.txt" },
      { tool: "ls", isError: false, text: "a.txt" },
      { tool: "find", isError: false, text: "notes/a.txt" },
      { tool: "grep", isError: false, text: "notes/a.txt:2: world" },
      { tool: "edit", isError: false, text: "Successfully replaced 1 block in notes/a.txt." },
      { tool: "read", isError: false, text: "hello\nloop" },
      { tool: "bash", isError: true, text: "2\n\nCommand exited with code 4" },
      { tool: "read", isError: true, text: "File not found: nope.txt" },
    ]);
    expect(readFileSync(ws.path("notes/a.txt"), "utf8")).toBe("hello\nloop\n");
    expect(events.at(-1)?.type).toBe("agent_end");
    const last = newMessages.at(-1) as AssistantMessage;
    expect(last.content).toEqual([{ type: "text", text: "All done." }]);
  });
});
