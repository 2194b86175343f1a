/**
 * What an `Agent` holds between and during runs, and how each loop event
 * changes it. Same fields and setter semantics as pi-agent-core's `AgentState`.
 */
import { createZeroUsage } from "../messages.js";
import { applyCompaction } from "../compaction/compact-transcript.js";
import { REQUEST_ABORTED_MESSAGE as ABORTED_MESSAGE } from "../providers/assistant-stream.js";
import type { AgentContext, AgentEvent, AgentMessage, AssistantMessage, Model, ThinkingLevel } from "../types.js";

/** The tools an agent offers (any schema; the loop's own tool list type). */
export type AgentTools = NonNullable<AgentContext["tools"]>;

/**
 * The agent's state. `systemPrompt`, `model`, `thinkingLevel`, `tools` and
 * `messages` are yours to change between runs (a change during a run applies
 * from the next run); the rest is kept by the agent.
 */
export interface AgentState {
  /** System prompt sent with each model request. */
  systemPrompt: string;
  /** Model used for the next run. */
  model: Model;
  /** Reasoning level for the next run; `"off"` sends none. */
  thinkingLevel: ThinkingLevel;
  /** Available tools. Assigning an array stores a copy of it (top level only). */
  get tools(): AgentTools;
  set tools(tools: AgentTools);
  /** The transcript. Assigning an array stores a copy of it (top level only). */
  get messages(): AgentMessage[];
  set messages(messages: AgentMessage[]);
  /** True from the start of a run until its `agent_end` listeners have settled. */
  readonly isStreaming: boolean;
  /** The message being streamed or announced (between its `message_start` and `message_end`), if any. */
  readonly streamingMessage?: AgentMessage;
  /** Ids of the tool calls between `tool_execution_start` and `tool_execution_end`. */
  readonly pendingToolCalls: ReadonlySet<string>;
  /** Error message of the most recent failed or aborted assistant turn; cleared when a run starts. */
  readonly errorMessage?: string;
}

/** The part of the state a caller may set up front (`AgentOptions.initialState`). */
export type AgentInitialState = Partial<Pick<AgentState, "systemPrompt" | "model" | "thinkingLevel" | "tools" | "messages">>;

/** The state with its runtime fields writable, for the agent itself. */
export type MutableAgentState = {
  -readonly [K in "isStreaming" | "streamingMessage" | "pendingToolCalls" | "errorMessage"]: AgentState[K];
} & Omit<AgentState, "isStreaming" | "streamingMessage" | "pendingToolCalls" | "errorMessage">;

/** pi's placeholder model, used until one is set: requests with it fail with an `error` response. */
export const UNKNOWN_MODEL: Model = {
  id: "unknown",
  name: "unknown",
  api: "unknown",
  provider: "unknown",
  baseUrl: "",
  reasoning: false,
  input: [],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 0,
  maxTokens: 0,
};

/** A fresh state; `tools` and `messages` are copied, never shared with `initial`. */
export function createAgentState(initial: AgentInitialState = {}): MutableAgentState {
  let tools = initial.tools?.slice() ?? [];
  let messages = initial.messages?.slice() ?? [];
  return {
    systemPrompt: initial.systemPrompt ?? "",
    model: initial.model ?? UNKNOWN_MODEL,
    thinkingLevel: initial.thinkingLevel ?? "off",
    get tools() {
      return tools;
    },
    set tools(next: AgentTools) {
      tools = next.slice();
    },
    get messages() {
      return messages;
    },
    set messages(next: AgentMessage[]) {
      messages = next.slice();
    },
    isStreaming: false,
    streamingMessage: undefined,
    pendingToolCalls: new Set<string>(),
    errorMessage: undefined,
  };
}

/**
 * Applies one loop event to the state: streamed and announced messages become
 * `streamingMessage`; `message_end` appends the message to the transcript;
 * tool calls enter and leave `pendingToolCalls` (a new Set each time, so a Set
 * read earlier is a snapshot); a failed turn sets `errorMessage`.
 */
export function reduceAgentState(state: MutableAgentState, event: AgentEvent): void {
  switch (event.type) {
    case "message_start":
    case "message_update":
      state.streamingMessage = event.message;
      return;
    case "message_end":
      state.streamingMessage = undefined;
      state.messages.push(event.message);
      return;
    case "tool_execution_start":
      state.pendingToolCalls = new Set(state.pendingToolCalls).add(event.toolCallId);
      return;
    case "tool_execution_end": {
      const pending = new Set(state.pendingToolCalls);
      pending.delete(event.toolCallId);
      state.pendingToolCalls = pending;
      return;
    }
    case "turn_end": {
      const message = event.message as Partial<AssistantMessage>;
      if (message.role === "assistant" && message.errorMessage) state.errorMessage = message.errorMessage;
      return;
    }
    case "agent_end":
      state.streamingMessage = undefined;
      // A run aborted or failed between responses (e.g. mid-tool) ends without a failed
      // assistant turn; say so anyway, as pi does once its next request comes back aborted.
      if (!state.errorMessage && (event.exitReason === "aborted" || event.exitReason === "error")) {
        state.errorMessage = event.errorMessage ?? (event.exitReason === "aborted" ? ABORTED_MESSAGE : "The run failed");
      }
      return;
    case "compaction_start":
      // An overflowing response that was streaming is dropped, not added: nothing streams now.
      state.streamingMessage = undefined;
      return;
    case "compaction_end":
      // The transcript kept here is the loop's: the same compaction applies to it.
      if (event.compacted) state.messages = applyCompaction(state.messages, event);
      return;
    case "agent_start":
    case "turn_start":
    case "tool_execution_update":
    case "approval_requested":
    case "warning":
      return;
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

/** The assistant message recorded when a run fails outside the loop (a throwing listener, an internal fault). */
export function runFailureMessage(model: Model, error: unknown, aborted: boolean): AssistantMessage {
  return {
    role: "assistant",
    content: [{ type: "text", text: "" }],
    api: model.api,
    provider: model.provider,
    model: model.id,
    usage: createZeroUsage(),
    stopReason: aborted ? "aborted" : "error",
    errorMessage: error instanceof Error ? error.message : String(error),
    timestamp: Date.now(),
  };
}
