/**
 * What `runSession` (the CLI's `run`, `resume`, `approve`, `reject`) is told, what it
 * answers, and the loop config it builds from its options.
 */
import type { InspectionEvent } from "xstate";
import { STREAM_IDLE_TIMEOUT_MS } from "../actors/request-model.js";

import type { CheckpointPolicy } from "../sessions/session-checkpoint.js";
import type { SessionStore } from "../sessions/session-store.js";
import type { AgentLoopConfig, AgentMessage, AgentTool, ExitReason, Message } from "../types.js";
import type { ApprovalDecision } from "./approval-prompt.js";
import type { CliIo } from "./cli-io.js";
import type { RunArgs } from "./parse-run-args.js";
import type { ResolvedModel } from "./resolve-model.js";
import type { RunStats } from "./run-stats.js";

/** `--session`: the run is stored in (and continues) a durable session. */
export interface DurableSessionOptions {
  store: SessionStore;
  id: string;
  /** Restore the session's unfinished run (`loopchart resume`) instead of prompting. */
  restore: boolean;
  /** The session's transcript so far (the new prompt goes after it). */
  messages: AgentMessage[];
  /** What `loopchart resume` needs to rebuild the run (model spec, tools, cwd…). */
  meta: Record<string, unknown>;
  /** Decisions to send once the restored run started (`loopchart approve|reject`). */
  decisions?: ApprovalDecision[];
  /** The `--store …` arguments to repeat in printed commands ("" for the default store). */
  storeArgs?: string;
  /** With `restore`: the turns the run had started before (its snapshot's), so the final line counts the whole run. */
  turnsSoFar?: number;
  /** Turns of the session's earlier runs, so the final line also gives the session's total (as `loopchart sessions`). */
  earlierTurns?: number;
  /** `--checkpoints`: which snapshots the session keeps (default: what its record says, else one per turn). */
  checkpoints?: CheckpointPolicy;
}

/**
 * The run flags `runSession` takes as `loopchart run` parsed them (`RunArgs` documents
 * each); `resume`, `approve` and `reject` give what their session recorded.
 */
type RunFlags = Partial<Pick<RunArgs, "thinkingLevel" | "wrapUp" | "budgetUsd" | "toolTimeoutMs" | "idleTimeoutMs" | "maxTimeMs" | "compaction" | "maxRetries" | "tracePath" | "inspectUrl">> &
  Pick<RunArgs, "json">;

/** Options of `runSession` (`run-session.ts`): the run's flags, and what it runs with. */
export interface SessionOptions extends RunFlags {
  io: CliIo;
  /** The prompt; ignored when restoring a durable session's run. */
  prompt: string;
  resolved: ResolvedModel;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tools of any schema, as AgentContext.tools
  tools: AgentTool<any, any>[];
  /** Working directory of the tools, recorded in the trace. */
  cwd: string;
  systemPrompt: string;
  maxTurns?: number;
  /** The CLI's arguments, for the trace header (redacted there). */
  argv: readonly string[];
  /** Store the run as a durable session. */
  durable?: DurableSessionOptions;
  /** Between turns (MCP servers' tool lists that changed). */
  prepareNextTurn?: AgentLoopConfig["prepareNextTurn"];
}

/** How a session ended. */
export interface SessionOutcome {
  exitCode: number;
  exitReason?: ExitReason;
  stats: RunStats;
  tracePath?: string;
}

/** Passes the plain LLM messages through; the CLI adds no custom message kinds. */
export function convertToLlm(messages: AgentMessage[]): Message[] {
  return messages.filter((message): message is Message => {
    const role = (message as { role?: string }).role;
    return role === "user" || role === "assistant" || role === "toolResult";
  });
}

/** The loop config of a CLI run: its options, the resolved model and key, and the trace/live inspector when there is one. */
export function sessionLoopConfig(options: SessionOptions, inspect: ((event: InspectionEvent) => void) | undefined): AgentLoopConfig {
  const { resolved } = options;
  return {
    model: resolved.model,
    convertToLlm,
    maxTurns: options.maxTurns,
    ...(options.thinkingLevel === undefined ? {} : { thinkingLevel: options.thinkingLevel }),
    ...(options.wrapUp === true ? { wrapUp: true } : {}),
    ...(options.budgetUsd === undefined ? {} : { budget: { costUsd: options.budgetUsd } }),
    ...(options.toolTimeoutMs === undefined ? {} : { toolDefaults: { timeoutMs: options.toolTimeoutMs } }),
    ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
    streamIdleTimeoutMs: options.idleTimeoutMs ?? STREAM_IDLE_TIMEOUT_MS,
    // On by default: a long run compacts its context instead of failing when it outgrows the window.
    ...(options.compaction === false ? {} : { compaction: options.compaction ?? {} }),
    ...(options.prepareNextTurn === undefined ? {} : { prepareNextTurn: options.prepareNextTurn }),
    apiKey: resolved.apiKey,
    getApiKey: () => resolved.apiKey,
    ...(inspect ? { inspect } : {}),
  };
}
