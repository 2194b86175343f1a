/**
 * The event protocol a run emits (pi's snake_case names) and how a run ends.
 * Re-exported by `types.ts`.
 */
import type { AgentMessage, AgentToolResult } from "./types.js";
import type { AssistantMessage, AssistantMessageEvent, ToolCall, ToolResultMessage, UserMessage } from "./llm-types.js";

/**
 * Why a run ended. loopchart's policies add `invalidCalls` (the invalid-call breaker,
 * `config.invalidCallLimit`) and `budget` (`config.budget` reached).
 */
export type ExitReason = "completed" | "terminated" | "stopped" | "maxTurns" | "invalidCalls" | "budget" | "error" | "aborted";

/** The event protocol (pi's snake_case names). `agent_end` is always last. */
export type AgentEvent =
  | { type: "agent_start" }
  | {
      type: "agent_end";
      messages: AgentMessage[];
      /** loopchart: why the run ended. */
      exitReason?: ExitReason;
      /** loopchart: what failed, when the exit reason is `error` (or `aborted`), or the failing call for `invalidCalls`. */
      errorMessage?: string;
    }
  | { type: "turn_start" }
  | { type: "turn_end"; message: AgentMessage; toolResults: ToolResultMessage[] }
  | { type: "message_start"; message: AgentMessage }
  | { type: "message_update"; message: AgentMessage; assistantMessageEvent: AssistantMessageEvent }
  | { type: "message_end"; message: AgentMessage }
  | { type: "tool_execution_start"; toolCallId: string; toolName: string; args: ToolCall["arguments"] }
  | {
      type: "tool_execution_update";
      toolCallId: string;
      toolName: string;
      args: ToolCall["arguments"];
      partialResult: AgentToolResult<unknown>;
    }
  | {
      type: "tool_execution_end";
      toolCallId: string;
      toolName: string;
      result: AgentToolResult<unknown>;
      isError: boolean;
      /**
       * Milliseconds the tool's `execute` took, measured with a monotonic clock
       * (`performance.now()`) and rounded; absent when the tool did not run (unknown
       * tool, invalid arguments, blocked, refused, aborted before it started).
       */
      durationMs?: number;
    }
  | {
      /**
       * loopchart: a call waits for a human decision (its tool's `needsApproval`, or
       * `beforeToolCall` returned `{ approval: "ask" }`). `args` are the validated
       * arguments it will run with. Answer with `tool.approve` / `tool.reject`
       * (`agent.approve` / `agent.reject`); the call then executes or gets an error result.
       */
      type: "approval_requested";
      toolCallId: string;
      toolName: string;
      args: unknown;
    }
  | {
      /**
       * loopchart: the run compacts its context (`config.compaction`): `threshold` (the
       * estimated context passed `contextWindow − reserveTokens` before a request),
       * `overflow` (the provider refused the request as too long), `length` (the response
       * stopped for length far below the output allowed) or `manual` (`agent.compact()`).
       * `tokensBefore` is the estimate that started it. `discarded`: the overflowing
       * response, which is not added to the transcript (the request is retried once).
       */
      type: "compaction_start";
      reason: "threshold" | "overflow" | "length" | "manual";
      tokensBefore: number;
      discarded?: AssistantMessage;
    }
  | {
      /**
       * loopchart: the compaction finished. When `compacted`, the transcript's first
       * `replaced` messages were replaced by `summaryMessage` (a user message holding
       * `summary` and the files read and modified); the rest is kept verbatim. Apply it to
       * a transcript you keep with `applyCompaction(messages, event)`. Sizes are estimates.
       */
      type: "compaction_end";
      reason: "threshold" | "overflow" | "length" | "manual";
      compacted: boolean;
      tokensBefore: number;
      tokensAfter: number;
      summary: string;
      replaced: number;
      summaryMessage?: UserMessage;
    }
  | {
      /**
       * loopchart: something went wrong that does not fail the run. `abandoned`: the abort
       * grace period (`abortGraceMs`) ran out while the run still waited on work that ignored
       * the signal; `message` names it (a tool call with its id, a hook, the model stream). The
       * run then ends `aborted`; whatever that work settles with later is ignored.
       * `approval`: a `tool.approve` / `tool.reject` sent to the loop actor named a call
       * that is unknown in the current batch or not awaiting approval (`toolCallId` says
       * which); nothing changed.
       */
      type: "warning";
      reason: "abandoned" | "approval";
      message: string;
      toolCallId?: string;
    };

/** Receives every event of a run, in order. A returned promise is awaited before the run's promise resolves. */
export type AgentEventSink = (event: AgentEvent) => Promise<void> | void;
