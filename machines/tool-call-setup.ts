/**
 * The tool-call machine's vocabulary: its context, the results a call settles
 * with, and the named actors, guards, actions and delays its chart
 * (`machines/tool-call.machine.ts`) and regions (`call-preparing.state.ts`,
 * `call-executing.state.ts`) refer to. The actors are stand-ins; `src/actors/`
 * provides the real ones. No I/O; the context is plain data, changed only through `assign`.
 */
import { assign, emit, enqueueActions, fromPromise, sendParent, setup, type AnyActorRef } from "xstate";
import type { AgentEvent, AgentToolResult, BeforeToolCallResult } from "../src/types.js";
import type { CallHookScope, BatchToToolCallEvent, SettledToolCall, ToolCallInput, ToolCallToBatchEvent } from "./events.js";
import { describeThrown } from "../src/describe-thrown.js";
import { timedOutText } from "./loop-policies.js";
import { BLOCKED_MESSAGE, REJECTED_MESSAGE } from "./result-texts.js";

export { ABORTED_MESSAGE, BLOCKED_MESSAGE, REJECTED_MESSAGE } from "./result-texts.js";

/** Context of a tool-call actor. JSON-serializable. */
export interface ToolCallContext extends ToolCallInput {
  /** Validated (and possibly hook-mutated) arguments, once prepared. */
  args?: unknown;
  /** The settled result, once known. */
  settled?: SettledToolCall;
  /** Goes on from preparation to execution without waiting (from the input, or released by `call.execute` while awaiting approval). */
  proceeds?: boolean;
  /** Which run of the tool this is, once it was retried (2 for the first retry). */
  attempt?: number;
  /** Set once the call asked for approval: `"asked"` while waiting, `"approved"` after. */
  approval?: "asked" | "approved";
}

/** Builds the error result every failure on a tool's path becomes. */
export function errorResult(text: string): AgentToolResult<unknown> {
  return { content: [{ type: "text", text }], details: {} };
}

/** Text of an error caught from a hook or tool. Never throws, whatever was thrown (see {@link describeThrown}). */
export const errorText = describeThrown;

/** Input of the `prepareCall` actor. */
export interface PrepareCallInput {
  toolCall: ToolCallInput["toolCall"];
  /** Set when the run has a call hook or a tool with a `needsApproval` function: what they are shown. */
  hookScope?: CallHookScope;
}

/**
 * What preparation ends with: the arguments to execute with (and whether a human
 * must approve the call first), or the call's result already.
 */
export type PreparedCall = { args: unknown; approval?: "ask" } | { settled: SettledToolCall };

/** Input of the `executeTool` actor. */
export interface ExecuteToolInput {
  toolCall: ToolCallInput["toolCall"];
  args: unknown;
}

/** Input of the `afterToolCall` actor. */
export interface FinalizeToolCallInput extends ExecuteToolInput {
  executed: SettledToolCall;
  hookScope?: CallHookScope;
}

/** The settled result a rejection becomes: an error result with the reason. */
export function rejectedResult(reason: string | undefined): SettledToolCall {
  const text = reason === undefined || reason === "" ? REJECTED_MESSAGE : `${REJECTED_MESSAGE}: ${reason}`;
  return { result: errorResult(text), isError: true };
}

export const missingResult = (): SettledToolCall => ({ result: errorResult("Tool call ended without a result"), isError: true });

/** The settled result a `beforeToolCall` verdict that blocks becomes. */
export function blockedResult(verdict: BeforeToolCallResult): SettledToolCall {
  const reason: unknown = verdict.reason;
  const text = reason === undefined || reason === "" ? BLOCKED_MESSAGE : describeThrown(reason);
  const result = errorResult(text);
  return { result: verdict.terminate === undefined ? result : { ...result, terminate: verdict.terminate }, isError: true };
}

/**
 * `tool_execution_end` of a call with its settled result (an error result when
 * none). `durationMs` is set only when known (no `undefined`-valued key), on the
 * new event before anyone sees it.
 */
export function executionEnd(context: ToolCallContext): Extract<AgentEvent, { type: "tool_execution_end" }> {
  const settled = context.settled ?? missingResult();
  const event: Extract<AgentEvent, { type: "tool_execution_end" }> = {
    type: "tool_execution_end",
    toolCallId: context.toolCall.id,
    toolName: context.toolCall.name,
    result: settled.result,
    isError: settled.isError,
  };
  if (settled.durationMs !== undefined) event.durationMs = settled.durationMs;
  return event;
}

/**
 * The `tool.settled` a call reports to its parent (an error result when none
 * settled). `rejected` and `durationMs` are set only when present, in that order,
 * on the new event before anyone sees it.
 */
export function settledReport(context: ToolCallContext): Extract<ToolCallToBatchEvent, { type: "tool.settled" }> {
  const settled = context.settled ?? missingResult();
  const report: Extract<ToolCallToBatchEvent, { type: "tool.settled" }> = {
    type: "tool.settled",
    toolCallId: context.toolCall.id,
    toolName: context.toolCall.name,
    index: context.index,
    result: settled.result,
    isError: settled.isError,
  };
  if (settled.rejected !== undefined) report.rejected = settled.rejected;
  if (settled.durationMs !== undefined) report.durationMs = settled.durationMs;
  return report;
}

/** Params of `settle`: the settled result an invoked step finished with. */
export const settledFromOutput = ({ event }: { event: { output: SettledToolCall } }): SettledToolCall => event.output;
/** The transition actions of a cancelled (or aborted) call: it settles with the reason as its error. */
export const cancelled = { type: "settleWithError", params: ({ event }: { event: { reason: string } }) => ({ error: event.reason }) } as const;

/** A step's actor (`prepareCall`, `executeTool`, `afterToolCall`) failed: XState's error event for it. */
export interface CallStepError {
  type: `xstate.error.actor.${string}`;
  error: unknown;
}

/** Events a call accepts: its batch's (or the run's) word, and its own steps' failures. */
export type ToolCallEvent = BatchToToolCallEvent | CallStepError;

/** A call refused without preparing (length truncation): the `isRefused` guard. */
const isRefusedCall = (context: ToolCallContext): boolean => context.refusal !== undefined;

/** `beforeToolCall`, or a tool's `needsApproval` function, may be asynchronous: the `prepareCall` actor asks them (the `preparesAsynchronously` guard). */
const preparesAsynchronously = (context: ToolCallContext): boolean =>
  context.hookScope !== undefined && (context.hooks?.beforeToolCall === true || context.hooks?.needsApproval === true);

/** Whether `starting` prepares the call itself (the `prepareArguments` action): neither refused nor prepared by the `prepareCall` actor. */
const preparesSynchronously = (context: ToolCallContext): boolean => !isRefusedCall(context) && !preparesAsynchronously(context);

/** What a synchronous preparation is given: the call's context and its actor system (where the run's services are found). */
export interface SynchronousPreparationArgs {
  context: ToolCallContext;
  system: AnyActorRef["system"];
}

/**
 * The `prepareArguments` action (entry of `preparing.starting`) from a
 * synchronous preparation: it runs `prepare` for a call that is neither refused
 * (`isRefused`) nor prepared by the `prepareCall` actor
 * (`preparesAsynchronously`), and changes nothing for those. The condition is the
 * two guards' own, evaluated here rather than in an `enqueueActions` wrapper,
 * which built its `enqueue` helpers and evaluated both guards once more for every call.
 */
export function synchronousPreparation(prepare: (args: SynchronousPreparationArgs) => Partial<ToolCallContext>) {
  return assign(({ context, system }: SynchronousPreparationArgs): Partial<ToolCallContext> => (preparesSynchronously(context) ? prepare({ context, system }) : {}));
}

/** The call machine's setup: its chart and its regions are built from it. */
export const toolCallSetup = setup({
  types: {
    context: {} as ToolCallContext,
    input: {} as ToolCallInput,
    events: {} as ToolCallEvent,
    emitted: {} as AgentEvent,
  },
  actors: {
    /**
     * Looks the tool up, applies `prepareArguments`, validates, and asks
     * `beforeToolCall` (when the run has it). Never rejects for the tool's or
     * hook's fault: every failure is a settled error result. Stand-in: accepts the raw arguments.
     */
    prepareCall: fromPromise<PreparedCall, PrepareCallInput>(async ({ input }) => ({ args: input.toolCall.arguments })),
    /**
     * Runs the tool with the call's own signal (aborted when this call stops, and
     * by the run's abort). Never rejects: a throwing tool resolves to an error
     * result. Stand-in: an empty success.
     */
    executeTool: fromPromise<SettledToolCall, ExecuteToolInput, AgentEvent>(async () => ({ result: { content: [], details: {} }, isError: false })),
    /** Applies `afterToolCall` overrides. Stand-in: keeps the executed result. */
    afterToolCall: fromPromise<SettledToolCall, FinalizeToolCallInput>(async ({ input }) => input.executed),
  },
  delays: {
    /** The tool's `timeoutMs` (only `executing.runningWithTimeout` waits on it). */
    toolTimeout: ({ context }) => context.policy?.timeoutMs ?? 0,
    /** `retry.backoffMs`, doubled before each further retry. */
    retryBackoff: ({ context }) => (context.policy?.retry?.backoffMs ?? 0) * 2 ** ((context.attempt ?? 2) - 2),
  },
  guards: {
    isRefused: ({ context }) => isRefusedCall(context),
    hasTimeout: ({ context }) => context.policy?.timeoutMs !== undefined,
    proceedsWithTimeout: ({ context }) => context.proceeds === true && context.policy?.timeoutMs !== undefined,
    /** The tool threw an error it marks retryable, and its retry policy allows another run. */
    retries: ({ context }, settled: SettledToolCall) =>
      settled.retryable === true && context.policy?.retry !== undefined && (context.attempt ?? 1) < context.policy.retry.attempts,
    settledInPreparation: (_, prepared: PreparedCall) => "settled" in prepared,
    asksApproval: ({ context }, prepared: PreparedCall) => "args" in prepared && prepared.approval === "ask" && context.preapproved !== true,
    proceeds: ({ context }) => context.proceeds === true,
    consultsAfterHook: ({ context }) => context.hooks?.afterToolCall === true,
    /** `beforeToolCall`, or a tool's `needsApproval` function, may be asynchronous: the prepareCall actor asks them. */
    preparesAsynchronously: ({ context }) => preparesAsynchronously(context),
    hasSettled: ({ context }) => context.settled !== undefined,
    /** The synchronous preparation asked for approval (the tool's `needsApproval: true`). */
    waitsForApproval: ({ context }) => context.approval === "asked",
  },
  actions: {
    /**
     * Preparation without `beforeToolCall` or a `needsApproval` function, which is
     * synchronous: looks the tool up, applies `prepareArguments` and validates,
     * recording the arguments (and `approval: "asked"` when the tool's
     * `needsApproval` is `true` and it was not approved for good) or the call's
     * error result; nothing for a refused call or one the `prepareCall` actor
     * prepares (providers build theirs with {@link synchronousPreparation}).
     * Stand-in: accepts the raw arguments.
     */
    prepareArguments: assign(({ context }): Partial<ToolCallContext> => (preparesSynchronously(context) ? { args: context.toolCall.arguments } : {})),
    /** Remembers the batch's go while the call waits for approval: it executes once approved. */
    proceedWhenPrepared: assign({ proceeds: true }),
    /** Records what preparation ended with: the arguments, or the result. */
    acceptPrepared: assign((_, prepared: PreparedCall) => ("settled" in prepared ? { settled: prepared.settled } : { args: prepared.args })),
    /** Records that the call waits for a decision. */
    markAsked: assign({ approval: "asked" as const }),
    /** Records the approval: the call goes on as prepared. */
    markApproved: assign({ approval: "approved" as const }),
    /** The call's tool was approved for good: a later request for approval is granted at once. */
    markPreapproved: assign({ preapproved: true }),
    settleWithRejection: assign((_, params: { reason: string | undefined }) => ({ settled: rejectedResult(params.reason) })),
    /** `approval_requested`, emitted by this call's actor as it starts waiting. */
    announceApprovalRequest: emit(({ context }) => ({
      type: "approval_requested" as const,
      toolCallId: context.toolCall.id,
      toolName: context.toolCall.name,
      args: context.args,
    })),
    /** Records the call's outcome: the executed (or finalized) result. */
    settle: assign((_, settled: SettledToolCall) => ({ settled })),
    settleWithRefusal: assign(({ context }) => ({ settled: { result: errorResult(context.refusal ?? ""), isError: true } })),
    settleTimedOut: assign(({ context }) => ({
      settled: { result: errorResult(timedOutText(context.toolCall.name, context.policy?.timeoutMs ?? 0)), isError: true },
    })),
    countAttempt: assign(({ context }) => ({ attempt: (context.attempt ?? 1) + 1 })),
    settleWithError: assign((_, params: { error: unknown }) => ({ settled: { result: errorResult(errorText(params.error)), isError: true } })),
    /** `tool_execution_start`, emitted by this call's actor. */
    announceStart: emit(({ context }) => ({
      type: "tool_execution_start" as const,
      toolCallId: context.toolCall.id,
      toolName: context.toolCall.name,
      args: context.toolCall.arguments,
    })),
    /** `tool_execution_end` with the settled result, emitted by this call's actor. */
    announceEnd: emit(({ context }) => executionEnd(context)),
    reportPrepared: enqueueActions(({ context, enqueue }) => {
      // An approved call reported on starting to wait.
      if (!context.reportsPreparation || context.approval === "approved") return;
      enqueue.sendParent({ type: "tool.prepared", toolCallId: context.toolCall.id, index: context.index } satisfies ToolCallToBatchEvent);
    }),
    reportSettled: sendParent(({ context }) => settledReport(context)),
  },
});
