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
import type { LoopToCallGroupEvent, LoopToToolCallEvent, PrepareRequestInput, ToolCallInput, TurnDecision, TurnHookInput } from "./events.js";
import { appendMessages, type Transcript } from "./transcript.js";
import { errorText } from "./tool-call.machine.js";
import type { BudgetSpent, CallCaps, InvalidCallStreak, ToolPolicies } from "./loop-policies.js";

/** Text of the error result each call of a length-truncated response gets. */
export const LENGTH_TRUNCATION_MESSAGE =
  "The response hit the output token limit before this tool call was complete, so it was not executed. " +
  "Re-issue the call with complete arguments (split large content across several calls if needed).";

/** Text of the result a call gets when the run was aborted before it could start. */
export const ABORTED_MESSAGE = "Operation aborted";

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
  maxTurns?: number;
  hooks?: Partial<AgentLoopHooks>;
  /**
   * Internal, not set by the runtime: most calls the loop spawns itself (default
   * 32). A larger batch is spawned in call groups of this many calls, because
   * tearing down one parent of n children costs XState n². The model checker
   * lowers it to explore call groups at a small bound.
   */
  callsPerGroup?: number;
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
}

/** The tool batch of the current turn. */
export interface ToolBatch {
  calls: ToolCall[];
  /** Actor id of each call (the tool call id, made unique within the batch). */
  actorIds: string[];
  /** Call groups the calls are spawned in; 0 when the loop spawns them itself. */
  groups: number;
  sequential: boolean;
  /** Refusal text when the whole batch is refused (length truncation). */
  refusal?: string;
  /**
   * Whether each call reports `tool.prepared` and waits for the loop before the
   * next one prepares (sequential batches, runs with `beforeToolCall`). Otherwise
   * preparation is synchronous, so the loop tells every call to prepare and then
   * to execute at once: the calls still prepare one at a time in source order.
   */
  handshake: boolean;
  /** Calls told to prepare so far (source order). */
  started: number;
  /** Indexes of prepared calls waiting for the go (handshake batches). */
  waiting: number[];
  /** Whether each call was told to execute and has not yet reported `tool.executed` or `tool.settled`. */
  running: boolean[];
  /** How many entries of `running` are true. */
  runningCount: number;
  /** Settled results by source index. */
  results: (ToolResultMessage | null)[];
  /** Per-tool `concurrency` and `maxParallelCalls` of a parallel batch, when any applies: calls wait in `waiting` for room. */
  caps?: CallCaps;
  /** Source indexes of the calls rejected in preparation (invalid arguments, unknown tool), when any. */
  rejected?: number[];
  /** Whether each settled result asked to terminate. */
  terminates: boolean[];
  settledCount: number;
  /** Results appended to the transcript so far (source order). */
  appended: number;
}

/** Context of the loop machine. Plain, JSON-serializable data, never changed in place: every change is a new value. */
export interface AgentLoopContext {
  systemPrompt: string;
  /** The transcript the model sees (shared chunks; read it with `transcriptMessages`). */
  messages: Transcript;
  /** The messages this run added, prompts included. */
  newMessages: Transcript;
  prompts: AgentMessage[];
  pending: AgentMessage[];
  model: Model;
  thinkingLevel: ThinkingLevel;
  toolExecution: ToolExecutionMode;
  sequentialTools: string[];
  maxTurns?: number;
  hooks: AgentLoopHooks;
  callsPerGroup: number;
  /** The abort grace period (ms): after it, what still ignores the abort is abandoned. */
  abortGraceMs: number;
  invalidCallLimit: number;
  onInvalidCallLimit: "stop" | "hint";
  /** The same failing call the model keeps sending, while it does. */
  invalidStreak?: InvalidCallStreak;
  wrapUp?: { prompt: string };
  /** Set during the wrap-up request: the exit reason the run ends with after it. */
  wrappingUp?: "maxTurns" | "budget";
  budget?: RunBudget;
  /** What the responses used so far (only with a budget). */
  spent?: BudgetSpent;
  toolPolicies?: ToolPolicies;
  maxParallelCalls?: number;
  /** Tools approved for good (the input's, and every `tool.approve` with `always`): their calls do not wait. */
  approvedTools: string[];
  /** See {@link AgentLoopInput.registersCalls}. */
  registersCalls: boolean;
  /** Turns started so far. */
  turn: number;
  assistant?: AssistantMessage;
  batch?: ToolBatch;
  toolResults: ToolResultMessage[];
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

/** Output of the loop machine. */
export interface AgentLoopOutput {
  exitReason: ExitReason;
  messages: AgentMessage[];
  errorMessage?: string;
}

export const toolCallsOf = (message: AssistantMessage | undefined): ToolCall[] =>
  message ? (message.content.filter((block) => block.type === "toolCall") as ToolCall[]) : [];

/**
 * Whether a batch runs one call at a time: when the run says so
 * (`toolExecution: "sequential"`), or when any call of the batch names a tool that
 * declares `executionMode: "sequential"` (pi's rule; a tool's `"parallel"` cannot
 * make a sequential run parallel). Calls of unknown tools count for nothing.
 */
export function runsSequentially(toolExecution: ToolExecutionMode, calls: readonly ToolCall[], sequentialTools: readonly string[]): boolean {
  return toolExecution === "sequential" || calls.some((call) => sequentialTools.includes(call.name));
}

const uniqueActorIds = (calls: ToolCall[]): string[] => {
  const seen = new Set<string>();
  return calls.map((call, index) => {
    const id = seen.has(call.id) ? `${call.id}#${index}` : call.id;
    seen.add(id);
    return id;
  });
};

/** The batch with `changes` applied, as a new object (the context is never changed in place). */
export function changedBatch(context: AgentLoopContext, changes: Partial<ToolBatch>): Pick<AgentLoopContext, "batch"> {
  return { batch: { ...(context.batch as ToolBatch), ...changes } };
}

/** The transcript after appending `added`: new values sharing the old chunks. */
export function appended(context: AgentLoopContext, added: AgentMessage[]): Pick<AgentLoopContext, "messages" | "newMessages"> {
  return { messages: appendMessages(context.messages, added), newMessages: appendMessages(context.newMessages, added) };
}

export const newBatch = (
  calls: ToolCall[],
  options: { sequential: boolean; handshake: boolean; refusal?: string; callsPerGroup: number; caps?: CallCaps },
): ToolBatch => ({
  calls,
  ...(options.caps ? { caps: options.caps } : {}),
  actorIds: uniqueActorIds(calls),
  groups: calls.length > options.callsPerGroup ? Math.ceil(calls.length / options.callsPerGroup) : 0,
  sequential: options.sequential,
  ...(options.refusal !== undefined ? { refusal: options.refusal } : {}),
  handshake: options.handshake,
  started: 0,
  waiting: [],
  running: calls.map(() => false),
  runningCount: 0,
  results: calls.map(() => null),
  terminates: calls.map(() => false),
  settledCount: 0,
  appended: 0,
});

/** The batch's `running` flags and count once the calls at `indexes` were told to execute. */
export function withRunning(context: AgentLoopContext, indexes: number[]): Pick<ToolBatch, "running" | "runningCount"> {
  const batch = context.batch as ToolBatch;
  const running = batch.running.slice();
  for (const index of indexes) running[index] = true;
  return { running, runningCount: batch.runningCount + indexes.length };
}

/** Indexes `from` (inclusive) to `to` (exclusive). */
export function indexRange(from: number, to: number): number[] {
  const indexes: number[] = [];
  for (let index = from; index < to; index += 1) indexes.push(index);
  return indexes;
}

/** Why the run ended. An abort wins: a run that saw `run.abort` ends `aborted`, whatever it was doing. */
export function finalExitReason(context: AgentLoopContext): ExitReason {
  return context.aborted ? "aborted" : (context.exitReason ?? "completed");
}

export { failedResponse } from "../src/messages.js";

/** Actor id of the call group that owns the calls from `group × callsPerGroup` on. */
export const callGroupId = (group: number): string => `calls-${group}`;

/** The input of each of the batch's tool-call actors, in source order. */
export function callInputs(context: AgentLoopContext): ToolCallInput[] {
  const batch = context.batch as ToolBatch;
  const hooks = { beforeToolCall: context.hooks.beforeToolCall, afterToolCall: context.hooks.afterToolCall };
  const hookScope =
    hooks.beforeToolCall || hooks.afterToolCall || context.hooks.needsApproval
      ? { assistantMessage: context.assistant as AssistantMessage, systemPrompt: context.systemPrompt, messages: context.messages }
      : undefined;
  const policies = context.toolPolicies?.calls;
  return batch.calls.map((toolCall, index): ToolCallInput => {
    const policy = policies && Object.hasOwn(policies, toolCall.name) ? policies[toolCall.name] : undefined;
    return {
      toolCall,
      index,
      hooks,
      reportsPreparation: batch.handshake,
      ...(hookScope ? { hookScope } : {}),
      ...(batch.refusal !== undefined ? { refusal: batch.refusal } : {}),
      ...(policy ? { policy } : {}),
      ...(context.approvedTools.includes(toolCall.name) ? { preapproved: true } : {}),
    };
  });
}

/**
 * Where the loop sends `event` for the calls at `indexes`: to each call itself,
 * or (grouped batches) one `group.send` per call group, in source order.
 */
export function callDeliveries(
  context: AgentLoopContext,
  indexes: number[],
  event: LoopToToolCallEvent,
): { to: string; event: LoopToToolCallEvent | LoopToCallGroupEvent }[] {
  const batch = context.batch as ToolBatch;
  if (batch.groups === 0) return indexes.map((index) => ({ to: batch.actorIds[index] as string, event }));
  const byGroup = new Map<number, number[]>();
  for (const index of indexes) {
    const group = Math.floor(index / context.callsPerGroup);
    const members = byGroup.get(group) ?? [];
    members.push(index);
    byGroup.set(group, members);
  }
  return [...byGroup].map(([group, members]) => ({ to: callGroupId(group), event: { type: "group.send", indexes: members, event } }));
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
 * still waited on `waitingOn` (a hook, the model stream), or, without it, on the
 * batch's unsettled calls. Says that a late settle will be ignored.
 */
export function abandonWarning(context: AgentLoopContext, waitingOn?: string): Extract<AgentEvent, { type: "warning" }> {
  const batch = context.batch;
  const pending = waitingOn !== undefined
    ? [waitingOn]
    : batch
      ? indexRange(0, batch.started)
          .filter((index) => batch.results[index] === null)
          .map((index) => `tool call "${batch.calls[index]?.name}" (id ${batch.calls[index]?.id})`)
      : [];
  const what = pending.length > 0 ? pending.join(", ") : "work in flight";
  return {
    type: "warning",
    reason: "abandoned",
    message: `${what} did not honour the abort within ${context.abortGraceMs} ms; the run stopped waiting, and a late settle will be ignored`,
  };
}

/** The `warning` the loop emits for a decision it cannot apply (unknown call, or a call not awaiting approval). */
export function approvalWarning(toolCallId: string, problem: string): Extract<AgentEvent, { type: "warning" }> {
  return { type: "warning", reason: "approval", toolCallId, message: `tool call ${JSON.stringify(toolCallId)} ${problem}; the decision was ignored` };
}
