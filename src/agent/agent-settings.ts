/**
 * The settings an `Agent` reads when a run starts (pi-agent-core's public `Agent`
 * fields: hooks, stream function, transport, tool execution, and loopchart's
 * additions), as a base class: `Agent` extends it, and a run's config is built from
 * it (`agent-loop-config.ts`) without that module importing `src/agent.ts`. Each
 * field may be changed between runs; a run uses the values it started with.
 */
import { streamByModelApi } from "../providers/stream-by-api.js";
import type { AgentLoopConfig, StreamFn, ToolExecutionMode } from "../types.js";
import { defaultConvertToLlm } from "./agent-input.js";
import type { AgentOptions, AgentThinkingBudgets, AgentTransport } from "./agent-options.js";

export class AgentSettings {
  /** Maps the transcript to LLM messages before each request. */
  convertToLlm: AgentLoopConfig["convertToLlm"];
  transformContext?: AgentLoopConfig["transformContext"];
  /** The stream function of the next run. */
  streamFn: StreamFn;
  getApiKey?: AgentLoopConfig["getApiKey"];
  onPayload?: AgentOptions["onPayload"];
  onResponse?: AgentOptions["onResponse"];
  beforeToolCall?: AgentLoopConfig["beforeToolCall"];
  afterToolCall?: AgentLoopConfig["afterToolCall"];
  shouldStopAfterTurn?: AgentOptions["shouldStopAfterTurn"];
  prepareNextTurn?: AgentOptions["prepareNextTurn"];
  prepareNextTurnWithContext?: AgentOptions["prepareNextTurnWithContext"];
  /** pi 1.x: see `AgentOptions.finishTurn`. */
  finishTurn?: AgentOptions["finishTurn"];
  /** pi 1.x: see `AgentOptions.prepareRequest`. */
  prepareRequest?: AgentOptions["prepareRequest"];
  /** Session identifier forwarded to providers for cache-aware backends. */
  sessionId?: string;
  /** Per-level thinking token budgets forwarded to the stream function. */
  thinkingBudgets?: AgentThinkingBudgets;
  /** Preferred transport forwarded to the stream function. */
  transport: AgentTransport;
  /** Cap for provider-requested retry delays. */
  maxRetryDelayMs?: number;
  /** How the calls of one assistant message run. */
  toolExecution: ToolExecutionMode;
  /** loopchart: ends a run instead of starting turn `maxTurns + 1`. */
  maxTurns?: number;
  /** loopchart: the XState inspector of the next run (readable snapshots; see `AgentOptions.inspect`). */
  inspect?: AgentOptions["inspect"];
  /** loopchart: context compaction of the next runs and of `Agent.compact` (see `AgentOptions.compaction`). */
  compaction?: AgentOptions["compaction"];

  constructor(options: AgentOptions) {
    this.convertToLlm = options.convertToLlm ?? defaultConvertToLlm;
    this.transformContext = options.transformContext;
    this.streamFn = options.streamFn ?? streamByModelApi;
    this.getApiKey = options.getApiKey;
    this.onPayload = options.onPayload;
    this.onResponse = options.onResponse;
    this.beforeToolCall = options.beforeToolCall;
    this.afterToolCall = options.afterToolCall;
    this.shouldStopAfterTurn = options.shouldStopAfterTurn;
    this.prepareNextTurn = options.prepareNextTurn;
    this.prepareNextTurnWithContext = options.prepareNextTurnWithContext;
    this.finishTurn = options.finishTurn;
    this.prepareRequest = options.prepareRequest;
    this.sessionId = options.sessionId;
    this.thinkingBudgets = options.thinkingBudgets;
    this.transport = options.transport ?? "auto";
    this.maxRetryDelayMs = options.maxRetryDelayMs;
    this.toolExecution = options.toolExecution ?? "parallel";
    this.maxTurns = options.maxTurns;
    this.inspect = options.inspect;
    this.compaction = options.compaction;
  }
}
