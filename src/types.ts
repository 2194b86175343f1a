/**
 * The agent-level data model: tools, hooks, the loop configuration and the event
 * protocol. Structurally identical to `@mariozechner/pi-agent-core` (0.73 line),
 * plus loopchart's additions (`maxTurns`, `prepareNextTurn`, exit reasons).
 */
import type {
  AssistantMessage,
  ImageContent,
  Message,
  Model,
  SimpleStreamOptions,
  TextContent,
  Tool,
  ToolCall,
  ToolResultMessage,
  Usage,
  UserMessage,
  AssistantMessageEvent,
  ThinkingLevel as LlmThinkingLevel,
} from "./llm-types.js";
import type { InferToolArgs, ToolParameters } from "./schema-types.js";
import type { LoopInspector } from "./inspection/inspection-event.js";
import type { CompactionConfig } from "./compaction/compaction-settings.js";

export type * from "./llm-types.js";
export type { ArgsSchema, InferToolArgs, JsonSchema, ToolParameters } from "./schema-types.js";

/**
 * How the calls of one assistant message run.
 * - `"parallel"` (default): prepared one at a time in source order, then executed concurrently;
 *   `tool_execution_end` in completion order, result messages in source order.
 * - `"sequential"`: each call is prepared, executed and finalized before the next starts.
 */
export type ToolExecutionMode = "sequential" | "parallel";

/** A tool call block of an assistant message. */
export type AgentToolCall = ToolCall;

/**
 * Reasoning level of the agent; `"off"` sends no reasoning option. `"max"` (pi-agent-core
 * 1.x) exists only in some model families: stream functions get it as
 * `thinkingLevel: "max"` with `reasoning: "xhigh"`, and loopchart's AI SDK adapter
 * serves it as `"high"` unless the model's `thinkingLevelMap` names it.
 */
export type ThinkingLevel = "off" | LlmThinkingLevel | "max";

/**
 * Apps add their own message kinds by declaration merging:
 *
 * @example
 * declare module "loopchart" {
 *   interface CustomAgentMessages { note: { role: "note"; text: string; timestamp: number } }
 * }
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface CustomAgentMessages {}

/** An LLM message or one of the app's custom messages. `convertToLlm` maps them to LLM messages. */
export type AgentMessage = Message | CustomAgentMessages[keyof CustomAgentMessages];

/** A value JSON can carry: what `structuredContent` may hold (results live in snapshots). */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

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

/** loopchart: token and cost ceilings of a run, summed from each response's `usage`. */
export interface RunBudget {
  /** Most tokens (`usage.totalTokens`) the run's responses may use. */
  tokens?: number;
  /** Most cost (`usage.cost.total`, USD) the run's responses may use. */
  costUsd?: number;
}

/** Context snapshot passed into the loop. The loop never mutates the caller's `messages` array. */
export interface AgentContext {
  systemPrompt: string;
  messages: AgentMessage[];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tools of any schema; mirrors pi's AgentTool<any>[]
  tools?: AgentTool<any, any>[];
}

/** Returned by `beforeToolCall`. `{ block: true }` skips execution with an error result. */
export interface BeforeToolCallResult {
  block?: boolean;
  /** The error text of the blocked result. Default `Tool execution was blocked`. */
  reason?: string;
  /** Marks the blocked result as terminating (see {@link AgentToolResult.terminate}). */
  terminate?: boolean;
  /**
   * loopchart: `"ask"` makes the call wait for a human decision, as a tool's
   * `needsApproval` does (ignored when `block` is set, or when the tool was approved with `always`).
   */
  approval?: "ask";
}

/**
 * Returned by `afterToolCall`: each field given replaces the executed result's
 * field in full. There is no deep merge; omitted fields keep their values.
 */
export interface AfterToolCallResult {
  content?: (TextContent | ImageContent)[];
  details?: unknown;
  /**
   * Replaces the structured content. When `content` is given without it, the
   * structured content is dropped (it may no longer match the content): return it
   * along with `content` to keep it. Not checked against `outputSchema`.
   */
  structuredContent?: JsonValue;
  isError?: boolean;
  terminate?: boolean;
  usage?: Usage;
}

/** Passed to `beforeToolCall`. */
export interface BeforeToolCallContext {
  assistantMessage: AssistantMessage;
  toolCall: AgentToolCall;
  /** Validated (and coerced) arguments. Mutating them changes what `execute` receives; they are not revalidated. */
  args: unknown;
  context: AgentContext;
}

/** Passed to `afterToolCall`. */
export interface AfterToolCallContext {
  assistantMessage: AssistantMessage;
  toolCall: AgentToolCall;
  args: unknown;
  /** The executed result before overrides. */
  result: AgentToolResult<unknown>;
  isError: boolean;
  context: AgentContext;
}

/** Passed to `shouldStopAfterTurn`, `finishTurn` and `prepareNextTurn`. */
export interface ShouldStopAfterTurnContext {
  message: AssistantMessage;
  toolResults: ToolResultMessage[];
  /** The run's context after this turn's messages were appended. */
  context: AgentContext;
  /** What the run returns if it ends now (prompt runs include the prompts). */
  newMessages: AgentMessage[];
}

/** pi-agent-core 1.x's name for the context of a completed turn (`finishTurn`, `prepareNextTurn`). */
export type AgentTurnContext = ShouldStopAfterTurnContext;

/** Passed to `prepareNextTurn`. */
export interface PrepareNextTurnContext extends ShouldStopAfterTurnContext {
  model: Model;
  thinkingLevel: ThinkingLevel;
}

/** Returned by `prepareNextTurn`: what the next turn uses instead. Omitted fields stay. */
export interface AgentLoopTurnUpdate {
  /** Replaces system prompt, transcript and tools from the next request on. */
  context?: AgentContext;
  /**
   * pi-agent-core 1.x: messages to append before the next request, emitted with
   * `message_start`/`message_end` like steering messages (and before any steering
   * message already pending).
   */
  messages?: AgentMessage[];
  model?: Model;
  thinkingLevel?: ThinkingLevel;
}

/** pi-agent-core 1.x: what `finishTurn` decides. `undefined` keeps the loop's own scheduling. */
export type AgentTurnDecision = { action: "continue" } | { action: "end" };

/**
 * pi-agent-core 1.x: called after a turn's assistant message and all its tool results,
 * immediately before `turn_end`. `{ action: "end" }` ends the run (exit reason
 * `stopped`) without polling a queue or asking `shouldStopAfterTurn`. `{ action:
 * "continue" }` makes sure of one more request: when tool results, steering or
 * follow-up messages already lead to one, nothing is added; otherwise the loop asks
 * once more with the current context. A failed (`error`/`aborted`) response stays a
 * hard exit: the hook is called, its decision ignored. A throw ends the run with exit
 * reason `error` naming the hook.
 */
export type FinishTurn = (
  turn: AgentTurnContext,
  signal?: AbortSignal,
) => AgentTurnDecision | undefined | void | Promise<AgentTurnDecision | undefined | void>;

/** pi-agent-core 1.x: passed to `prepareRequest`: what the request about to be made would use. */
export interface PrepareRequestContext {
  /** The run's context, pending messages already appended. */
  context: AgentContext;
  model: Model;
  thinkingLevel: ThinkingLevel;
}

/** pi-agent-core 1.x: returned by `prepareRequest`. Given fields replace the run's values for this and every later request. */
export type AgentRequestUpdate = Omit<AgentLoopTurnUpdate, "messages">;

/**
 * pi-agent-core 1.x: called immediately before every model request, the first
 * included, after pending messages were appended and emitted. It polls no queue. A
 * throw ends the turn with a failed response and the run with exit reason `error`.
 */
export type PrepareRequest = (
  request: PrepareRequestContext,
  signal?: AbortSignal,
) => AgentRequestUpdate | undefined | void | Promise<AgentRequestUpdate | undefined | void>;

/** The loop's configuration. Every hook may be async; hooks receive the run's abort signal where noted. */
export interface AgentLoopConfig extends SimpleStreamOptions {
  model: Model;
  /**
   * Maps the transcript to LLM messages before each request; filter out UI-only messages here.
   * Contract: must not throw. If it does, the turn ends with an `error` response.
   */
  convertToLlm: (messages: AgentMessage[]) => Message[] | Promise<Message[]>;
  /** Runs before `convertToLlm` on each request (pruning, injection). Same contract. */
  transformContext?: (messages: AgentMessage[], signal?: AbortSignal) => Promise<AgentMessage[]>;
  /** Resolves the API key for each request; falls back to `apiKey`. */
  getApiKey?: (provider: string) => Promise<string | undefined> | string | undefined;
  /** After `turn_end`: true ends the run at once (`agent_end`, exit reason `stopped`), polling nothing more. */
  shouldStopAfterTurn?: (context: ShouldStopAfterTurnContext) => boolean | Promise<boolean>;
  /** pi-agent-core 1.x: before `turn_end`, may end the run or ask for one more request (see {@link FinishTurn}). Runs before `shouldStopAfterTurn`. */
  finishTurn?: FinishTurn;
  /** pi-agent-core 1.x: before every request, may replace context, model and thinking level from then on (see {@link PrepareRequest}). */
  prepareRequest?: PrepareRequest;
  /** Before each further turn: may swap context, model or thinking level for it, or append messages (pi 1.x). */
  prepareNextTurn?: (
    context: PrepareNextTurnContext,
    signal?: AbortSignal,
  ) => AgentLoopTurnUpdate | undefined | Promise<AgentLoopTurnUpdate | undefined>;
  /** Polled before the first request and after each turn's tool batch. Messages are injected before the next request. */
  getSteeringMessages?: () => Promise<AgentMessage[]>;
  /** Polled when the run would otherwise end; messages start another turn. */
  getFollowUpMessages?: () => Promise<AgentMessage[]>;
  /** Default `"parallel"`. */
  toolExecution?: ToolExecutionMode;
  /** After validation, before execution. `{ block: true }` yields an error result instead. */
  beforeToolCall?: (context: BeforeToolCallContext, signal?: AbortSignal) => Promise<BeforeToolCallResult | undefined>;
  /** After execution, before `tool_execution_end`: field-wise overrides, no deep merge. A throw becomes an error result. */
  afterToolCall?: (context: AfterToolCallContext, signal?: AbortSignal) => Promise<AfterToolCallResult | undefined>;
  /** loopchart: the run ends with exit reason `maxTurns` instead of starting turn `maxTurns + 1`. */
  maxTurns?: number;
  /**
   * loopchart: when the run reaches `maxTurns` (or its `budget`), make one last request
   * with no tools declared and the wrap-up prompt appended as a user message, so the run
   * ends with an answer. The exit reason stays `maxTurns` (or `budget`). `true` uses
   * {@link DEFAULT_WRAP_UP_PROMPT}.
   *
   * @example wrapUp: { prompt: "Stop here and summarise what you found." }
   */
  wrapUp?: boolean | { prompt: string };
  /**
   * loopchart: the invalid-call breaker. When the model sends the same failing call
   * (same tool, same arguments; invalid arguments or an unknown tool) this many times in a
   * row, the run ends with exit reason `invalidCalls` (or, with `onInvalidCallLimit:
   * "hint"`, gets one hint first). Default {@link DEFAULT_INVALID_CALL_LIMIT}; 0 turns it off.
   */
  invalidCallLimit?: number;
  /**
   * loopchart: what the breaker does at `invalidCallLimit`. `"stop"` (default) ends the run;
   * `"hint"` appends a steering message naming the error and the tool's schema and gives the
   * model one more turn; the next identical failure ends the run.
   */
  onInvalidCallLimit?: "stop" | "hint";
  /**
   * loopchart: token and cost ceilings. When the responses so far reach one, the run
   * ends after the current batch with exit reason `budget` (after the wrap-up answer
   * with `wrapUp`). A response that ends the run anyway ends it as usual.
   *
   * @example budget: { tokens: 200_000, costUsd: 1.5 }
   */
  budget?: RunBudget;
  /** loopchart: policies for every tool that does not declare its own (`timeoutMs`, `retry`). */
  toolDefaults?: ToolDefaults;
  /**
   * loopchart: at most this many calls of a parallel batch execute at once, whatever
   * their tools (an integer >= 1; anything else is a `LoopInputError`). Applies with
   * each tool's `concurrency`: a call starts when it fits both. The waiting calls
   * queue as with `concurrency`; results keep source order.
   *
   * @example maxParallelCalls: 4
   */
  maxParallelCalls?: number;
  /**
   * loopchart: how long (ms) an aborted run waits for the work it awaits — a tool, a hook, the
   * model stream — to honour the signal before it stops waiting: pending calls get an aborted
   * result and the run ends `aborted`. A late settle is ignored. Default `ABORT_GRACE_MS` (2000).
   */
  abortGraceMs?: number;
  /**
   * loopchart: how long (ms) a model stream may deliver nothing — no event, before the first
   * or between two — before the request ends as an error naming the provider, its URL and the
   * wait. Unset or `0`: no limit (as pi). When set, the stream function gets a signal of the
   * request's own (the run's abort reaches it), which the timeout aborts to end the HTTP request.
   * The CLI sets `STREAM_IDLE_TIMEOUT_MS` (120 000) unless `--idle-timeout` says otherwise.
   */
  streamIdleTimeoutMs?: number;
  /**
   * loopchart: names of tools approved for good before the run starts (an `Agent`
   * passes the tools approved with `always` earlier in its session). Calls of
   * these tools never wait for approval. Approvals with `always` during the run
   * add to the loop's `approvedTools` (in its context and snapshot).
   */
  approvedTools?: string[];
  /** loopchart: reasoning level; `"off"` sends none. Overrides `reasoning` when set. */
  thinkingLevel?: ThinkingLevel;
  /**
   * loopchart: context compaction, off unless set. Older history is summarized (by the
   * run's own model unless `summarize` is given) when the context nears the window, when
   * the provider refuses a request as too long, or when a response stops for `length` far
   * below the output allowed; the last two retry the request once. See `CompactionConfig`.
   *
   * @example compaction: { reserveTokens: 16_384, keepRecentTokens: 20_000 }
   */
  compaction?: CompactionConfig;
  /**
   * loopchart: an XState inspector that sees every actor of the run (loop, batch, each call,
   * each invoked actor), e.g. `createWebSocketInspector({ url }).inspect` from `@statelyai/inspect`
   * or `recordTrace({ file }).inspect`. It receives readable events: snapshots, events and
   * actions as plain data, long strings truncated, functions dropped, API keys and
   * `Authorization` headers redacted (`rawInspectionEvent(event)` gives the live event back).
   */
  inspect?: LoopInspector;
}

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
