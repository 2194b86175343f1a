import type { AgentEvent, AssistantMessage, ToolResultMessage, Usage } from "../../src/types.js";

const usage = (input: number, output: number, cost = 0): Usage => ({
  input,
  output,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: input + output,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: cost },
});

const assistant = (content: AssistantMessage["content"], stopReason: AssistantMessage["stopReason"], extra: Partial<AssistantMessage> = {}): AssistantMessage => ({
  role: "assistant",
  content,
  api: "scripted",
  provider: "scripted",
  model: "demo",
  usage: usage(100, 20, 0.001),
  stopReason,
  timestamp: 1,
  ...extra,
});

/** A recorded two-turn run: text, one read call (ok), one bash call (error), final answer. */
export function sampleRun(): AgentEvent[] {
  const first = assistant(
    [
      { type: "text", text: "Reading the notes." },
      { type: "toolCall", id: "c1", name: "read", arguments: { path: "notes.txt" } },
      { type: "toolCall", id: "c2", name: "bash", arguments: { command: "false" } },
    ],
    "toolUse",
  );
  const partial = assistant([{ type: "text", text: "Reading" }], "toolUse");
  const readResult: ToolResultMessage = {
    role: "toolResult",
    toolCallId: "c1",
    toolName: "read",
    content: [{ type: "text", text: "line one\nline two" }],
    isError: false,
    timestamp: 2,
  };
  const bashResult: ToolResultMessage = {
    role: "toolResult",
    toolCallId: "c2",
    toolName: "bash",
    content: [{ type: "text", text: "Command exited with code 1" }],
    isError: true,
    timestamp: 3,
  };
  const final = assistant([{ type: "text", text: "All done." }], "stop");
  return [
    { type: "agent_start" },
    { type: "turn_start" },
    { type: "message_start", message: { role: "user", content: "Tidy up", timestamp: 0 } },
    { type: "message_end", message: { role: "user", content: "Tidy up", timestamp: 0 } },
    { type: "message_start", message: partial },
    { type: "message_update", message: partial, assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta: "Reading", partial } },
    { type: "message_update", message: partial, assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta: " the notes.", partial } },
    { type: "message_end", message: first },
    { type: "tool_execution_start", toolCallId: "c1", toolName: "read", args: { path: "notes.txt" } },
    { type: "tool_execution_start", toolCallId: "c2", toolName: "bash", args: { command: "false" } },
    { type: "tool_execution_end", toolCallId: "c2", toolName: "bash", result: { content: bashResult.content, details: {} }, isError: true },
    { type: "tool_execution_end", toolCallId: "c1", toolName: "read", result: { content: readResult.content, details: {} }, isError: false },
    { type: "message_start", message: readResult },
    { type: "message_end", message: readResult },
    { type: "message_start", message: bashResult },
    { type: "message_end", message: bashResult },
    { type: "turn_end", message: first, toolResults: [readResult, bashResult] },
    { type: "turn_start" },
    { type: "message_start", message: final },
    { type: "message_end", message: final },
    { type: "turn_end", message: final, toolResults: [] },
    { type: "agent_end", messages: [], exitReason: "completed" },
  ];
}
