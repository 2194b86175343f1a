/**
 * The options of `new Agent(options)`: pi-agent-core 0.73's `AgentOptions`, plus
 * pi 1.x's turn hooks (`shouldStopAfterTurn`, `prepareNextTurn`,
 * `prepareNextTurnWithContext`) and loopchart's `maxTurns`.
 */
import type { SessionStore } from "../sessions/session-store.js";
import type { CheckpointPolicy } from "../sessions/session-checkpoint.js";
import type {
  AgentEvent,
  AgentLoopConfig,
  AgentLoopTurnUpdate,
  FinishTurn,
  PrepareNextTurnContext,
  PrepareRequest,
  ShouldStopAfterTurnContext,
  SimpleStreamOptions,
  StreamFn,
  ToolExecutionMode,
} from "../types.js";
import type { AgentInitialState } from "./agent-state.js";
import type { QueueMode } from "./message-queue.js";

/**
 * Receives every event of every run, with the run's abort signal. A returned
 * promise is awaited before the next listener (and the next event) is called;
 * the run is not idle until the promises for `agent_end` settled. A listener
 * that throws or rejects ends the run: the agent aborts it and records an
 * `error` assistant message (see `Agent.subscribe`).
 */
export type AgentListener = (event: AgentEvent, signal: AbortSignal) => Promise<void> | void;

/** The transport a provider should prefer (`"auto"` lets it choose). */
export type AgentTransport = NonNullable<SimpleStreamOptions["transport"]>;

/** Token budgets per thinking level, forwarded to the stream function. */
export type AgentThinkingBudgets = NonNullable<SimpleStreamOptions["thinkingBudgets"]>;

/** Options of `new Agent(options)`. Every field is optional; each becomes a public property of the same name. */
export interface AgentOptions {
  /** Starting system prompt, model, thinking level, tools and transcript (arrays are copied). */
  initialState?: AgentInitialState;
  /** Maps the transcript to LLM messages. Default: keeps `user`, `assistant` and `toolResult` messages. */
  convertToLlm?: AgentLoopConfig["convertToLlm"];
  /** Runs before `convertToLlm` on every request (pruning, injection). */
  transformContext?: AgentLoopConfig["transformContext"];
  /** The stream function (pi-ai's `streamSimple` works). Default: loopchart's `streamByModelApi`, which serves the model by its `api`. */
  streamFn?: StreamFn;
  /** Resolves the API key per request, by provider. */
  getApiKey?: AgentLoopConfig["getApiKey"];
  /** Forwarded to the stream function: inspect or replace the provider payload. */
  onPayload?: SimpleStreamOptions["onPayload"];
  /** Forwarded to the stream function: sees the provider's HTTP status and headers. */
  onResponse?: SimpleStreamOptions["onResponse"];
  /** After validation, before execution: `{ block: true }` gives the call an error result. */
  beforeToolCall?: AgentLoopConfig["beforeToolCall"];
  /** After execution: field-wise overrides of the result, no deep merge. */
  afterToolCall?: AgentLoopConfig["afterToolCall"];
  /** pi 1.x: after each `turn_end`, true ends the run (nothing more is polled). Receives the run's signal. */
  shouldStopAfterTurn?: (context: ShouldStopAfterTurnContext, signal?: AbortSignal) => boolean | Promise<boolean>;
  /** pi 1.x: before each further turn, may swap context, model or thinking level. Receives only the run's signal. */
  prepareNextTurn?: (signal?: AbortSignal) => Promise<AgentLoopTurnUpdate | undefined> | AgentLoopTurnUpdate | undefined;
  /** pi 1.x: like `prepareNextTurn`, with the turn's context; wins when both are set. */
  prepareNextTurnWithContext?: (
    context: PrepareNextTurnContext,
    signal?: AbortSignal,
  ) => Promise<AgentLoopTurnUpdate | undefined> | AgentLoopTurnUpdate | undefined;
  /** pi 1.x: after a turn's results, before `turn_end`: `{ action: "end" | "continue" }` or nothing (see `FinishTurn`). */
  finishTurn?: FinishTurn;
  /** pi 1.x: before every request, may replace context, model and thinking level from then on (see `PrepareRequest`). */
  prepareRequest?: PrepareRequest;
  /** How `steer()`ed messages are drained. Default `"one-at-a-time"`. */
  steeringMode?: QueueMode;
  /** How `followUp()` messages are drained. Default `"one-at-a-time"`. */
  followUpMode?: QueueMode;
  /** Forwarded to the stream function, for providers with session-based caching. */
  sessionId?: string;
  /** Forwarded to the stream function. */
  thinkingBudgets?: AgentThinkingBudgets;
  /** Forwarded to the stream function. Default `"auto"`. */
  transport?: AgentTransport;
  /** Forwarded to the stream function: cap on provider-requested retry delays. */
  maxRetryDelayMs?: number;
  /** How the calls of one response run. Default `"parallel"`. */
  toolExecution?: ToolExecutionMode;
  /** loopchart: a run ends (exit reason `maxTurns`) instead of starting turn `maxTurns + 1`. */
  maxTurns?: number;
  /** loopchart: context compaction for every run (off unless set; see `AgentLoopConfig.compaction`); `agent.compact()` uses it too. */
  compaction?: AgentLoopConfig["compaction"];
  /**
   * loopchart: an XState inspector for every run of the agent, seeing every actor of each run
   * with readable snapshots (see `AgentLoopConfig.inspect`), e.g.
   * `createWebSocketInspector({ url: "ws://127.0.0.1:4242" }).inspect` for `loopchart inspect`.
   */
  inspect?: AgentLoopConfig["inspect"];
  /**
   * loopchart: makes the agent's session durable. Every run is saved to the store
   * under `sessionId` (required then) as it goes — the loop's snapshot, the message
   * log, each call's start before its tool runs — so `Agent.resume(store, sessionId)`
   * in another process continues a run this one did not finish.
   */
  sessionStore?: SessionStore;
  /** loopchart: the caller's JSON data kept on the session record (e.g. how to rebuild the tools). */
  sessionMeta?: Record<string, unknown>;
  /**
   * loopchart: which snapshots the durable session keeps besides the latest:
   * `"turns"` (default) a checkpoint at every turn boundary and approval wait, so
   * `Agent.fork` can branch from any of them; `"latest"` only the latest (the smallest
   * store). A resumed session keeps the policy its record names unless this is given.
   */
  checkpoints?: CheckpointPolicy;
}
