/**
 * The loop machine's data: input, context, output, the tool batch, and the pure
 * helpers its actions use (no I/O, no XState). Kept apart from the chart so
 * `agent-loop.machine.ts` reads as the loop itself.
 */
import type {
  AgentEvent,
  AgentMessage,
  AssistantMessage,
  ExitReason,
  Model,
  RunBudget,
  ThinkingLevel,
  ToolCall,
  ToolExecutionMode,
  ToolResultMessage,
} from "../src/types.js";
import type { PrepareRequestInput, TurnDecision, TurnHookInput } from "./events.js";
import { appendMessages, type Transcript } from "./transcript.js";
import { errorText } from "./tool-call.machine.js";
import { capsFor, type BudgetSpent, type InvalidCallStreak, type ToolPolicies } from "./loop-policies.js";
import { batchModeOf, type ToolBatchInput } from "./tool-batch.machine.js";
import type { CompactionSettings } from "../src/compaction/compaction-settings.js";
import type { CompactionState } from "./compaction-policy.js";

export { runsSequentially } from "./tool-batch.machine.js";

export { ABORTED_MESSAGE, LENGTH_TRUNCATION_MESSAGE } from "./result-texts.js";

/** Which hooks the run has; lets the chart skip polling states that would do nothing. */
export interface AgentLoopHooks {
  beforeToolCall: boolean;
  afterToolCall: boolean;
  steering: boolean;
  followUp: boolean;
  shouldStopAfterTurn: boolean;
  prepareNextTurn: boolean;
  /** pi-agent-core 1.x: before every request. */
  prepareRequest: boolean;
  /** pi-agent-core 1.x: after a turn's results, before `turn_end`. */
  finishTurn: boolean;
  /** Some tool decides `needsApproval` with a function: its calls are shown the run's context, as hooks are. */
  needsApproval: boolean;
}

/** Input of the loop machine. All plain data. */
export interface AgentLoopInput {
  systemPrompt: string;
  /** The transcript the run starts from (prompts already appended for a prompt run). */
  messages: AgentMessage[];
  /** Prompts of a prompt run; emitted as messages at the start. Empty for a continue run. */
  prompts: AgentMessage[];
  model: Model;
  thinkingLevel?: ThinkingLevel;
  toolExecution?: ToolExecutionMode;
  /** Names of tools that declare `executionMode: "sequential"`. */
  sequentialTools?: string[];
  /**
   * Names of tools whose calls may wait for approval (a `needsApproval` that is
   * `true` or a function). A call of one never takes the direct path
   * (`dispatching.alone`) unless its tool was approved for good.
   */
  approvalTools?: string[];
  maxTurns?: number;
  hooks?: Partial<AgentLoopHooks>;
  /** How long (ms) an aborted run waits for work that ignores the signal (default `ABORT_GRACE_MS`). */
  abortGraceMs?: number;
  /** The invalid-call breaker's limit (default `DEFAULT_INVALID_CALL_LIMIT`; 0: off). */
  invalidCallLimit?: number;
  /** What the breaker does at the limit (default `"stop"`). */
  onInvalidCallLimit?: "stop" | "hint";
  /** The wrap-up request at `maxTurns` or the budget, when asked for. */
  wrapUp?: { prompt: string };
  budget?: RunBudget;
  /** Per-tool timeout, retry and concurrency, of the tools that have any. */
  toolPolicies?: ToolPolicies;
  /** At most this many calls of a parallel batch execute at once. */
  maxParallelCalls?: number;
  /** Names of tools approved for good before the run: their calls never wait for approval. */
  approvedTools?: string[];
  /**
   * Register each call under its system id `toolCall:<id>`, where `tool.approve` /
   * `tool.reject` find it whatever the batch structure. The runtime sets it
   * (`createAgentLoopActor`). Off by default: a pure exploration (xstate/graph, the
   * model checker) spawns the same call on many paths within one actor system, and
   * a system id can be registered only once.
   */
  registersCalls?: boolean;
  /** Compaction (`config.compaction`): the `requesting.compacting` state is entered only when set. */
  compaction?: CompactionSettings;
}

/**
 * What a run is set up with, from its input (only `prepareNextTurn`'s new tool
 * list replaces its sequential tools and tool policies). Grouped so the
 * context stays a small object (V8 keeps an object XState copies on every
 * `assign` fast only below 20 properties; past that each assign and read is a
 * hash-table operation).
 */
export interface RunSettings {
  /** Prompts of a prompt run; emitted as messages at the start. */
  prompts: AgentMessage[];
  toolExecution: ToolExecutionMode;
  sequentialTools: string[];
  /** See {@link AgentLoopInput.approvalTools}; absent in a snapshot written before the direct path (then no call takes it). */
  approvalTools?: string[];
  maxTurns?: number;
  hooks: AgentLoopHooks;
  /** The abort grace period (ms): after it, what still ignores the abort is abandoned. */
  abortGraceMs: number;
  invalidCallLimit: number;
  onInvalidCallLimit: "stop" | "hint";
  wrapUp?: { prompt: string };
  budget?: RunBudget;
  toolPolicies?: ToolPolicies;
  maxParallelCalls?: number;
  /** See {@link AgentLoopInput.registersCalls}. */
  registersCalls: boolean;
  /** See {@link AgentLoopInput.compaction}. */
  compaction?: CompactionSettings;
}

/** Where a run stands against its policies; each field only once it applies. */
export interface LimitsState {
  /** The same failing call the model keeps sending, while it does. */
  invalidStreak?: InvalidCallStreak;
  /** Set during the wrap-up request: the exit reason the run ends with after it. */
  wrappingUp?: "maxTurns" | "budget";
  /** What the responses used so far (only with a budget). */
  spent?: BudgetSpent;
  /** Where compaction stands (only with `settings.compaction`, once it ran). */
  compaction?: CompactionState;
}

/** `limits` with the breaker's row replaced (or ended, with `undefined`). */
export function withStreak(limits: LimitsState, invalidStreak: InvalidCallStreak | undefined): LimitsState {
  const { invalidStreak: _replaced, ...rest } = limits;
  return invalidStreak ? { ...rest, invalidStreak } : rest;
}

/** `settings` for a new tool list: its sequential tools, the tools that may ask for approval, and its policies (or none). */
export function withTools(settings: RunSettings, sequentialTools: string[], toolPolicies: ToolPolicies | undefined, approvalTools: string[] | undefined): RunSettings {
  const { toolPolicies: _replaced, approvalTools: _alsoReplaced, ...rest } = settings;
  return { ...rest, sequentialTools, ...(approvalTools ? { approvalTools } : {}), ...(toolPolicies ? { toolPolicies } : {}) };
}

/** Context of the loop machine. Plain, JSON-serializable data, never changed in place: every change is a new value. */
export interface AgentLoopContext {
  systemPrompt: string;
  /** The transcript the model sees (shared chunks; read it with `transcriptMessages`). */
  messages: Transcript;
  /** The messages this run added, prompts included. */
  newMessages: Transcript;
  pending: AgentMessage[];
  model: Model;
  thinkingLevel: ThinkingLevel;
  settings: RunSettings;
  /** Where the run stands against its policies (empty when none applies). */
  limits: LimitsState;
  /** Tools approved for good (the input's, and every `tool.approve` with `always`): their calls do not wait. */
  approvedTools: string[];
  /** Turns started so far. */
  turn: number;
  assistant?: AssistantMessage;
  /** Set when the current response's calls are all refused (length truncation). */
  refusal?: string;
  toolResults: ToolResultMessage[];
  /**
   * The direct path (`dispatching.alone`): the calls that settled so far, the
   * latest first ({@link SettledCalls}). Absent when none has (and in a snapshot
   * written before the direct path ran several calls: one call, unsettled).
   */
  settledCalls?: SettledCalls;
  /** The last batch asked to terminate (every result set `terminate`). */
  terminated: boolean;
  /** What `finishTurn` decided for the current turn, if anything. */
  turnDecision?: TurnDecision;
  aborted: boolean;
  /**
   * The grace period after the abort ran out while a batch (or the model request)
   * still waited: the run waits on no user function any more (not even `finishTurn`)
   * and ends after the turn's `turn_end`.
   */
  abandoned?: boolean;
  exitReason?: ExitReason;
  errorMessage?: string;
}

/**
 * A call of the direct path that settled, and those that settled before it: a
 * list, latest first, so recording a settle copies nothing. Plain data.
 */
export interface SettledCalls {
  /** The call's source index. */
  index: number;
  /** Its result message, made as it settled (as a batch makes it). */
  result: ToolResultMessage;
  /** It was rejected in preparation (unknown tool, invalid arguments). */
  rejected?: true;
  /** This result and every earlier one asked to terminate. */
  allTerminate: boolean;
  /** How many of the response's calls have not settled yet. */
  unsettled: number;
  earlier?: SettledCalls;
}

/** Output of the loop machine. */
export interface AgentLoopOutput {
  exitReason: ExitReason;
  messages: AgentMessage[];
  errorMessage?: string;
}

export const toolCallsOf = (message: AssistantMessage | undefined): ToolCall[] =>
  message ? (message.content.filter((block) => block.type === "toolCall") as ToolCall[]) : [];

/** The transcript after appending `added`: new values sharing the old chunks. */
export function appended(context: AgentLoopContext, added: AgentMessage[]): Pick<AgentLoopContext, "messages" | "newMessages"> {
  return { messages: appendMessages(context.messages, added), newMessages: appendMessages(context.newMessages, added) };
}

/**
 * Whether the loop emits the current batch's result messages (the backfill, in
 * `appending`): a parallel batch, refused ones included, settles its calls in any
 * order and its results are emitted together in source order; a sequential batch
 * emitted each right after its call settled, as pi does.
 */
export function resultsAwaitBackfill(context: AgentLoopContext): boolean {
  return context.refusal !== undefined || batchModeOf(toolCallsOf(context.assistant), context.settings.toolExecution, context.settings.sequentialTools) === "parallel";
}

/** Why the run ended. An abort wins: a run that saw `run.abort` ends `aborted`, whatever it was doing. */
export function finalExitReason(context: AgentLoopContext): ExitReason {
  return context.aborted ? "aborted" : (context.exitReason ?? "completed");
}

export { failedResponse } from "../src/messages.js";

/**
 * The input of the batch of the current response: its calls, the mode
 * ({@link batchModeOf}), the refusal of a length-truncated response (refused
 * batches run in parallel: nothing executes), the call hooks and what they are
 * shown, whether the run was aborted already, the tools approved for good,
 * whether calls register their system id, and the caps of a parallel batch
 * when one binds ({@link capsFor}; none: the batch runs as if uncapped).
 */
export function batchInput(context: AgentLoopContext): ToolBatchInput {
  const assistant = context.assistant as AssistantMessage;
  const calls = toolCallsOf(assistant);
  const refused = context.refusal !== undefined;
  const hooks = { beforeToolCall: context.settings.hooks.beforeToolCall, afterToolCall: context.settings.hooks.afterToolCall, needsApproval: context.settings.hooks.needsApproval };
  const mode = refused ? "parallel" : batchModeOf(calls, context.settings.toolExecution, context.settings.sequentialTools);
  const { maxParallelCalls, toolPolicies } = context.settings;
  const caps =
    mode === "parallel" && !refused && (maxParallelCalls !== undefined || toolPolicies !== undefined)
      ? capsFor(calls, toolPolicies?.concurrency, maxParallelCalls)
      : undefined;
  return {
    calls,
    mode,
    ...(context.refusal !== undefined ? { refusal: context.refusal } : {}),
    hooks,
    ...(hooks.beforeToolCall || hooks.afterToolCall || hooks.needsApproval
      ? { hookScope: { assistantMessage: assistant, systemPrompt: context.systemPrompt, messages: context.messages } }
      : {}),
    aborted: context.aborted,
    abortGraceMs: context.settings.abortGraceMs,
    ...(context.approvedTools.length > 0 ? { approvedTools: context.approvedTools } : {}),
    ...(context.settings.toolPolicies && Object.keys(context.settings.toolPolicies.calls).length > 0 ? { policies: context.settings.toolPolicies.calls } : {}),
    ...(context.settings.registersCalls ? { registersCalls: true } : {}),
    ...(caps ? { caps } : {}),
  };
}

export function turnHookInput(context: AgentLoopContext): TurnHookInput {
  return {
    message: context.assistant as AssistantMessage,
    toolResults: context.toolResults,
    newMessages: context.newMessages,
    messages: context.messages,
    systemPrompt: context.systemPrompt,
    model: context.model,
    thinkingLevel: context.thinkingLevel,
  };
}

export function prepareRequestInput(context: AgentLoopContext): PrepareRequestInput {
  return { systemPrompt: context.systemPrompt, messages: context.messages, model: context.model, thinkingLevel: context.thinkingLevel };
}

/** Whether the turn's response failed (stopReason `error` or `aborted`): such a turn ends the run whatever a hook says. */
export const turnFailed = (context: AgentLoopContext): boolean =>
  context.assistant?.stopReason === "error" || context.assistant?.stopReason === "aborted";

export function hookFailure(hook: string, error: unknown): { reason: ExitReason; errorMessage: string } {
  // errorMessage doubles as failTurn's parameter.
  return { reason: "error", errorMessage: `${hook} threw: ${errorText(error)}` };
}


/**
 * The `warning` event the loop emits when the abort grace period ran out while it
 * still waited on `waitingOn` (a hook, the model stream). Says that a late settle
 * will be ignored. (The batch warns about its own unsettled calls.)
 */
export function abandonWarning(context: AgentLoopContext, waitingOn: string): Extract<AgentEvent, { type: "warning" }> {
  return {
    type: "warning",
    reason: "abandoned",
    message: `${waitingOn} did not honour the abort within ${context.settings.abortGraceMs} ms; the run stopped waiting, and a late settle will be ignored`,
  };
}

/** The `warning` the loop emits for a decision it cannot apply (unknown call, or a call not awaiting approval). */
export function approvalWarning(toolCallId: string, problem: string): Extract<AgentEvent, { type: "warning" }> {
  return { type: "warning", reason: "approval", toolCallId, message: `tool call ${JSON.stringify(toolCallId)} ${problem}; the decision was ignored` };
}
