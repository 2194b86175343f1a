/**
 * The internal event alphabet of the loop and tool-call machines, and the data
 * their actors exchange. Everything here is JSON-serializable data; the public
 * event protocol (`agent_start`, `tool_execution_end`, …) is `AgentEvent` in
 * `src/types.ts`.
 */
import type {
  AgentMessage,
  AgentToolResult,
  AssistantMessage,
  AssistantMessageEvent,
  Model,
  ThinkingLevel,
  ToolCall,
} from "../src/types.js";

/** What a tool call ends with: exactly one of these per call. */
export interface SettledToolCall {
  result: AgentToolResult<unknown>;
  isError: boolean;
}

/** Output of the `prepareToolCall` actor: run it with these args, or settle at once. */
export type ToolCallPreparation =
  | { kind: "prepared"; args: unknown }
  | { kind: "immediate"; result: AgentToolResult<unknown>; isError: true };

/** Input of one spawned tool-call actor. */
export interface ToolCallInput {
  toolCall: ToolCall;
  /** Position in the assistant message (source order). */
  index: number;
  /** When set, the call is refused without being prepared; the text is its error result. */
  refusal?: string;
}

/** Events a tool-call actor sends to the loop. */
export type ToolCallToLoopEvent =
  | { type: "tool.queued"; toolCallId: string; index: number }
  | { type: "tool.prepared"; toolCallId: string; index: number }
  | { type: "tool.executed"; toolCallId: string; index: number }
  | { type: "tool.update"; toolCallId: string; toolName: string; args: ToolCall["arguments"]; partialResult: AgentToolResult<unknown> }
  | { type: "tool.settled"; toolCallId: string; toolName: string; index: number; result: AgentToolResult<unknown>; isError: boolean };

/** Events the loop sends to a tool-call actor. */
export type LoopToToolCallEvent =
  | { type: "call.prepare" }
  | { type: "call.execute" }
  | { type: "call.cancel"; reason: string }
  | { type: "call.release" };

/** The done event of a released tool-call actor (`xstate.done.actor.<tool call id>`). */
export interface ToolCallDoneEvent {
  type: `xstate.done.actor.${string}`;
  actorId?: string;
  output?: unknown;
}

/** Events the `executeTool` actor sends back to its tool-call actor. */
export type ExecuteToolEvent =
  | { type: "execute.update"; partialResult: AgentToolResult<unknown> }
  | { type: "execute.done"; result: AgentToolResult<unknown>; isError: boolean };

/** Events the `requestModel` actor sends back to the loop while a response streams. */
export type ModelStreamEvent =
  | { type: "model.start"; partial: AssistantMessage }
  | { type: "model.update"; partial: AssistantMessage; streamEvent: AssistantMessageEvent }
  | { type: "model.done"; message: AssistantMessage; started: boolean };

/** Input of the `requestModel` actor: everything one model request needs. */
export interface RequestModelInput {
  systemPrompt: string;
  messages: AgentMessage[];
  model: Model;
  thinkingLevel: ThinkingLevel;
  turn: number;
}

/** What `prepareNextTurn` may change for the next turn. */
export interface NextTurnUpdate {
  systemPrompt?: string;
  messages?: AgentMessage[];
  model?: Model;
  thinkingLevel?: ThinkingLevel;
  /** Names of tools that force sequential execution, when the tool list changed. */
  sequentialTools?: string[];
}

/** Input of the hook actors that run between turns. */
export interface TurnHookInput {
  message: AssistantMessage;
  toolResults: import("../src/types.js").ToolResultMessage[];
  newMessages: AgentMessage[];
  messages: AgentMessage[];
  systemPrompt: string;
  model: Model;
  thinkingLevel: ThinkingLevel;
}

/** Events the outside world sends to the loop. */
export type RunControlEvent = { type: "run.abort" };

/** Every event the loop machine accepts. */
export type AgentLoopEvent = ModelStreamEvent | ToolCallToLoopEvent | ToolCallDoneEvent | RunControlEvent;
