/**
 * The agent-level data model: hooks and the loop configuration here; tools
 * (`agent-tool-types.ts`) and the event protocol (`agent-events.ts`) re-exported.
 * Structurally identical to `@mariozechner/pi-agent-core` (0.73 line), plus
 * loopchart's additions (`maxTurns`, `prepareNextTurn`, exit reasons).
 */
import type {
  AssistantMessage,
  ImageContent,
  Message,
  Model,
  SimpleStreamOptions,
  TextContent,
  ToolCall,
  ToolResultMessage,
  Usage,
  ThinkingLevel as LlmThinkingLevel,
} from "./llm-types.js";
import type { LoopInspector } from "./inspection/inspection-event.js";
import type { CompactionConfig } from "./compaction/compaction-settings.js";

export type * from "./llm-types.js";
export type { ArgsSchema, InferToolArgs, JsonSchema, ToolParameters } from "./schema-types.js";
export type * from "./agent-tool-types.js";
import type { AgentTool, AgentToolResult, ToolDefaults } from "./agent-tool-types.js";
export type * from "./agent-events.js";

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
