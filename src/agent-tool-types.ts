/**
 * Tools as the loop sees them: what a tool returns (`AgentToolResult`), the tool
 * itself (`AgentTool`, pi's shape plus loopchart's policies) and the policies every
 * tool may be given. Re-exported by `types.ts`.
 */
import type { ImageContent, TextContent, Tool, Usage } from "./llm-types.js";
import type { InferToolArgs, ToolParameters } from "./schema-types.js";
import type { AgentContext, JsonValue, ToolExecutionMode } from "./types.js";

/** What a tool returns, and what a tool's partial updates carry. */
export interface AgentToolResult<TDetails = unknown> {
  /** Text and images the model reads. */
  content: (TextContent | ImageContent)[];
  /** Structured data for logs and UIs; never sent to the model. */
  details: TDetails;
  /**
   * pi-agent-core 1.x: machine-readable result for programmatic callers, matching the
   * tool's `outputSchema` when it declares one (checked; a mismatch becomes an error
   * result naming the failing paths). Never sent to the model, and not on the
   * `toolResult` message: it is on `tool_execution_end`'s `result` and what
   * `runToolCall` returns.
   */
  structuredContent?: JsonValue;
  /**
   * pi-agent-core 1.x: report a failure without throwing. The model reads `content` as
   * an error result, as after a throw, while `details` and `structuredContent` are kept.
   */
  isError?: boolean;
  /**
   * Asks the loop to stop after this batch. The run stops only when every result
   * of a non-empty batch sets it.
   */
  terminate?: boolean;
  /**
   * Tokens and cost a tool spent (e.g. a sub-agent); carried to the `toolResult`
   * message, never summed into the model's usage.
   */
  usage?: Usage;
  /**
   * Names of tools this result makes available (transcript-level tool registration):
   * carried to the `toolResult` message so the transcript records when a tool was
   * added. The loop does not declare them by itself: put the tools in the context
   * (e.g. with `prepareRequest` or `prepareNextTurn`).
   */
  addedToolNames?: string[];
}

/** Receives a tool's partial results; each call emits `tool_execution_update`. Calls after the tool settles are ignored. */
export type AgentToolUpdateCallback<TDetails = unknown> = (partialResult: AgentToolResult<TDetails>) => void;

/**
 * A tool the loop can run.
 *
 * `execute` throws on failure instead of encoding the failure in `content`; the
 * loop turns the message into an `isError` result for the model. It receives the
 * run's abort signal and should stop promptly when it fires.
 */
export interface AgentTool<TParameters extends ToolParameters = ToolParameters, TDetails = unknown>
  extends Tool<TParameters> {
  /** Human-readable label for UIs. */
  label: string;
  /** Compatibility shim applied to the raw arguments before validation (e.g. accept a legacy shape). */
  prepareArguments?: (args: unknown) => InferToolArgs<TParameters>;
  /** Runs the call. Throws on failure. */
  execute: (
    toolCallId: string,
    params: InferToolArgs<TParameters>,
    signal?: AbortSignal,
    onUpdate?: AgentToolUpdateCallback<TDetails>,
  ) => Promise<AgentToolResult<TDetails>>;
  /**
   * pi-agent-core 1.x: the JSON Schema (or a TypeBox or zod schema) of `structuredContent`
   * in successful results. A tool that declares it must set `structuredContent`; a
   * successful result whose `structuredContent` does not match becomes an error result
   * naming the failing paths. Checked when the run starts (a malformed schema throws
   * `InvalidToolDefinitionError`).
   */
  outputSchema?: object;
  /**
   * Per-tool execution mode. `"sequential"` makes the whole batch containing this tool
   * run one call at a time; `"parallel"` (or none) leaves the batch to
   * `config.toolExecution`. As in pi, a tool cannot make a sequential run parallel.
   */
  executionMode?: ToolExecutionMode;
  /**
   * Whether a call that was mid-flight when a persisted run was restored may be run
   * again. Default false: the restored call gets an error result instead.
   */
  idempotent?: boolean;
  /**
   * loopchart: how long (ms) one run of this tool may take. When it passes, the
   * call's own signal aborts and the call settles with an error result saying it
   * timed out (a late settle is ignored). Overrides `config.toolDefaults.timeoutMs`.
   *
   * @example timeoutMs: 30_000
   */
  timeoutMs?: number;
  /**
   * loopchart: runs the call again when `execute` throws an error it marks retryable
   * (a {@link RetryableToolError}, or any error with `retryable: true`). Only for
   * tools with `replay: "safe"`; other errors are never retried. Overrides
   * `config.toolDefaults.retry`.
   *
   * @example retry: { attempts: 3, backoffMs: 200 } // up to 3 runs, waiting 200 ms, then 400 ms
   */
  retry?: ToolRetryPolicy;
  /**
   * loopchart: at most this many calls of this tool execute at once in a parallel
   * batch (an integer >= 1; anything else is a `LoopInputError`). A batch with more
   * calls of the tool prepares them one at a time in source order, as with
   * `beforeToolCall`; the calls that do not fit wait prepared (queued) and start, in
   * source order, as running ones settle. Results keep source order. After an abort
   * the waiting calls are cancelled and never start. No effect on sequential batches.
   *
   * @example concurrency: 2 // a rate-limited API: two requests in flight at most
   */
  concurrency?: number;
  /**
   * loopchart: whether a human must approve a call before it runs. A function is
   * asked with the validated arguments and the run's context as the batch
   * started; a throw becomes the call's error result. A call that needs approval
   * waits (state `awaitingApproval`, event `approval_requested`) until
   * `tool.approve` / `tool.reject` (or `agent.approve` / `agent.reject`);
   * a tool approved with `always` is not asked again in that run (or agent session).
   */
  needsApproval?: boolean | ((args: InferToolArgs<TParameters>, context: AgentContext) => boolean | Promise<boolean>);
  /**
   * pi-agent-core 1.x: what a durable session (or DBOS workflow) does with this
   * tool's call when the process died while it ran. `"never"` (the default): the
   * call is not run again and gets an error result saying it was interrupted by a
   * restart; `"safe"`: it runs again. Calls that settled never run again either way.
   */
  replay?: "never" | "safe";
}

/** loopchart: how a tool's call is retried (see {@link AgentTool.retry}). */
export interface ToolRetryPolicy {
  /** Most runs of one call, the first included (an integer >= 1). */
  attempts: number;
  /** Wait before the first retry (ms, default 0); doubles before each further one. */
  backoffMs?: number;
}

/** loopchart: per-tool policies every tool gets unless it declares its own. */
export interface ToolDefaults {
  /** See {@link AgentTool.timeoutMs}. */
  timeoutMs?: number;
  /** See {@link AgentTool.retry}; applies to `replay: "safe"` tools only. */
  retry?: ToolRetryPolicy;
}
