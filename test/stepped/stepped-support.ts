/** Shared pieces of the stepped-run tests: a turn-keyed scripted model, a counting tool, a transcript without clocks. */
import { Type } from "typebox";
import type { AgentEvent, AgentMessage, AgentTool, StreamFn } from "../../src/types.js";
import { mockStream, type MockResponse } from "../helpers/mock-stream.js";

const parameters = Type.Object({ text: Type.String() });

/** An echo tool that records every execution (by call id) and what it was given. */
export function recordingEcho() {
  const executed: string[] = [];
  const tool: AgentTool<typeof parameters> = {
    name: "echo",
    label: "Echo",
    description: "Echoes text",
    parameters,
    async execute(id, args) {
      executed.push(id);
      return { content: [{ type: "text", text: `echo: ${args.text}` }], details: { length: args.text.length } };
    },
  };
  return { tool, executed };
}

/**
 * Answers by how many assistant messages the request holds, so a run restored
 * elsewhere is asked exactly what the original was; `requests` counts the calls.
 */
export function turnStream(responses: MockResponse[]): StreamFn & { requests: () => number } {
  let requests = 0;
  const fn: StreamFn = (model, context, options) => {
    requests += 1;
    const turn = context.messages.filter((message) => message.role === "assistant").length;
    return mockStream([responses[turn] ?? { text: "(script exhausted)" }])(model, context, options);
  };
  return Object.assign(fn, { requests: () => requests });
}

export const echoCall = (id: string, text: string) => ({ id, name: "echo", arguments: { text } });

/** Two parallel echo calls, `a` then `b`, and a final answer. */
export const TWO_CALLS: MockResponse[] = [{ calls: [echoCall("a", "first"), echoCall("b", "second")] }, { text: "both done" }];

/** `value` with every `timestamp` and `durationMs` field removed: what two runs at different times share. */
export function withoutClocks<T>(value: T): unknown {
  return JSON.parse(JSON.stringify(value), (key, field: unknown) => (key === "timestamp" || key === "durationMs" ? undefined : field));
}

/** The roles and tool call ids of a transcript, e.g. `toolResult:a`. */
export function shape(messages: AgentMessage[]): string[] {
  return messages.map((message) => (message.role === "toolResult" ? `toolResult:${message.toolCallId}` : message.role));
}

/** Event types, with the call id for tool events and the role for message events (no deltas: `message_update` dropped). */
export function protocol(events: AgentEvent[]): string[] {
  return events.flatMap((event) => {
    if (event.type === "message_update") return [];
    if (event.type.startsWith("tool_execution")) return [`${event.type}:${(event as { toolCallId: string }).toolCallId}`];
    if (event.type === "message_start" || event.type === "message_end") {
      const message = event.message as AgentMessage;
      return [`${event.type}:${message.role === "toolResult" ? `toolResult:${message.toolCallId}` : message.role}`];
    }
    if (event.type === "agent_end") return [`agent_end:${event.exitReason ?? ""}`];
    return [event.type];
  });
}
