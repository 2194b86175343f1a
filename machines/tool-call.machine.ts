/**
 * One tool call, as its own actor:
 *
 *   starting ─┬─ (refused) ─────────────────────────────────────────────────────────▶ done
 *   (announces; ├─ preparesAsynchronously ─▶ preparing ─┐ (settled: unknown, invalid, blocked, aborted ─▶ done)
 *   prepares    └─ (prepared on entry) ─────────────────┴─┬─ (asks approval) ─▶ awaitingApproval ─┬─ call.approve ─▶ prepared | executing
 *   synchronously)                                        │                                       └─ call.reject / call.abort ─▶ done
 *                                                         ├─ (handshake) ─▶ prepared ─ call.execute ─▶ executing
 *                                                         └─ (proceeds) ─────────────────────────────▶ executing
 *   executing ─┬─ retries ─▶ waitingToRetry ─ (backoff) ─▶ executing
 *              ├─ consultsAfterHook ─▶ finalizing ─▶ done
 *              └─▶ done
 *   (executingWithTimeout: the same, for a tool with `timeoutMs`; when it passes ─▶ done, timed out)
 *
 * Its batch (`machines/tool-batch.machine.ts`) spawns it (actor id
 * `call@<source index>`, system id `toolCall:<tool call id>`) when the call's turn comes, and it starts preparing at once. A refused call (length truncation)
 * settles without preparing. Without a handshake (`proceeds`) it goes on to
 * execute; with one (`reportsPreparation`) it reports `tool.prepared` and waits
 * in `prepared` for `call.execute`. Either way it reports exactly one
 * `tool.settled` to its batch, on reaching `done`. `call.cancel` (after an abort)
 * settles it at once from any step; leaving a state stops its actor, so a
 * cancelled tool's signal aborts.
 *
 * Each step's work is an invoked, named actor of the call: `prepareCall` (lookup,
 * `prepareArguments`, validation, `beforeToolCall`), `executeTool` (the tool's
 * `execute` with the call's own signal) and `afterToolCall` — except preparation
 * without `beforeToolCall`, which is synchronous and so the named action
 * `prepareArguments` (an actor would cost an event and a microtask per call). They take what they
 * need as input from this context; `src/actors/` provides the real ones. The call
 * emits its own `tool_execution_start` (entering `preparing`) and
 * `tool_execution_end` (settling). The context is plain data, changed only through `assign`.
 *
 * Approval: when preparation says the call needs a human decision (the tool's
 * `needsApproval`, or `beforeToolCall` returning `{ approval: "ask" }`) and its
 * tool was not approved for good, the call waits in `awaitingApproval` and emits
 * `approval_requested`. For its batch it counts as prepared (it reports
 * `tool.prepared` when asked to, and remembers a `call.execute`), so a parallel
 * batch goes on; it executes once approved and released. A rejection settles it
 * with an error result carrying the reason.
 */
import { assign, emit, enqueueActions, fromPromise, raise, sendParent, setup } from "xstate";
import type { AgentEvent, AgentToolResult, BeforeToolCallResult } from "../src/types.js";
import type { CallHookScope, BatchToToolCallEvent, SettledToolCall, ToolCallInput, ToolCallToBatchEvent } from "./events.js";
import { describeThrown } from "../src/describe-thrown.js";
import { timedOutText } from "./loop-policies.js";

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

/** Text of the result a call gets when the run was aborted before it could finish. */
export const ABORTED_MESSAGE = "Operation aborted";

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

/** Text of the result when `beforeToolCall` blocks without a reason. */
export const BLOCKED_MESSAGE = "Tool execution was blocked";

/** Text of the result of a call the user rejected; a reason given follows it. */
export const REJECTED_MESSAGE = "Tool call was rejected";

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

const settledFromOutput = ({ event }: { event: { output: SettledToolCall } }): SettledToolCall => event.output;
const cancelled = { type: "settleWithError", params: ({ event }: { event: { reason: string } }) => ({ error: event.reason }) } as const;

const toolCallSetup = setup({
  types: {
    context: {} as ToolCallContext,
    input: {} as ToolCallInput,
    events: {} as BatchToToolCallEvent,
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
    /** The tool's `timeoutMs` (only `executingWithTimeout` waits on it). */
    toolTimeout: ({ context }) => context.policy?.timeoutMs ?? 0,
    /** `retry.backoffMs`, doubled before each further retry. */
    retryBackoff: ({ context }) => (context.policy?.retry?.backoffMs ?? 0) * 2 ** ((context.attempt ?? 2) - 2),
  },
  guards: {
    isRefused: ({ context }) => context.refusal !== undefined,
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
    preparesAsynchronously: ({ context }) =>
      context.hookScope !== undefined && (context.hooks?.beforeToolCall === true || context.hooks?.needsApproval === true),
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
     * error result. Stand-in: accepts the raw arguments.
     */
    prepareArguments: assign(({ context }): Partial<ToolCallContext> => ({ args: context.toolCall.arguments })),
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
    announceEnd: emit(({ context }) => {
      const settled = context.settled ?? missingResult();
      return {
        type: "tool_execution_end" as const,
        toolCallId: context.toolCall.id,
        toolName: context.toolCall.name,
        result: settled.result,
        isError: settled.isError,
        ...(settled.durationMs === undefined ? {} : { durationMs: settled.durationMs }),
      };
    }),
    reportPrepared: enqueueActions(({ context, enqueue }) => {
      // An approved call reported on starting to wait.
      if (!context.reportsPreparation || context.approval === "approved") return;
      enqueue.sendParent({ type: "tool.prepared", toolCallId: context.toolCall.id, index: context.index } satisfies ToolCallToBatchEvent);
    }),
    reportSettled: sendParent(({ context }): ToolCallToBatchEvent => {
      const settled = context.settled ?? missingResult();
      return {
        type: "tool.settled",
        toolCallId: context.toolCall.id,
        toolName: context.toolCall.name,
        index: context.index,
        result: settled.result,
        isError: settled.isError,
        ...(settled.rejected !== undefined ? { rejected: settled.rejected } : {}),
        ...(settled.durationMs === undefined ? {} : { durationMs: settled.durationMs }),
      };
    }),
  },
});

/**
 * Running the tool: `executing`, and `executingWithTimeout` (the same, with the
 * tool's `timeoutMs`). Leaving stops the tool's actor (its signal aborts) and
 * ignores a late settle.
 */
const runningTool = toolCallSetup.createStateConfig({
  on: { "call.cancel": { target: "done", actions: cancelled } },
  invoke: {
    id: "executeTool",
    src: "executeTool",
    input: ({ context }): ExecuteToolInput => ({ toolCall: context.toolCall, args: context.args }),
    onDone: [
      { guard: { type: "retries", params: settledFromOutput }, target: "waitingToRetry", actions: "countAttempt" },
      { guard: "consultsAfterHook", target: "finalizing", actions: { type: "settle", params: settledFromOutput } },
      { target: "done", actions: { type: "settle", params: settledFromOutput } },
    ],
    onError: { target: "done", actions: { type: "settleWithError", params: ({ event }) => ({ error: event.error }) } },
  },
});

export const toolCallMachine = toolCallSetup.createMachine({
  id: "toolCall",
  context: ({ input }) => ({ ...input }),
  initial: "starting",
  on: {
    // The tool was approved for good while this call was on its way (or done: then nothing changes).
    "call.preapprove": { actions: "markPreapproved" },
  },
  states: {
    // Every call is announced as it starts; one prepared synchronously is prepared here too,
    // so the transitions below read what preparation ended with.
    starting: {
      entry: [
        "announceStart",
        // Preparation without an actor (`prepareArguments`), unless the call is refused or its
        // preparation asks `beforeToolCall` or a `needsApproval` function (the `prepareCall` actor does).
        enqueueActions(({ check, enqueue }) => {
          if (!check("isRefused") && !check("preparesAsynchronously")) enqueue("prepareArguments");
        }),
      ],
      always: [
        // A refused call (length truncation) settles without preparing.
        { guard: "isRefused", target: "done", actions: "settleWithRefusal" },
        // beforeToolCall and needsApproval functions are asked in the prepareCall actor.
        { guard: "preparesAsynchronously", target: "preparing" },
        { guard: "hasSettled", target: "done" },
        { guard: "waitsForApproval", target: "awaitingApproval" },
        { guard: "proceedsWithTimeout", target: "executingWithTimeout" },
        { guard: "proceeds", target: "executing" },
        { target: "prepared" },
      ],
    },
    preparing: {
      on: { "call.cancel": { target: "done", actions: cancelled } },
      invoke: {
        id: "prepareCall",
        src: "prepareCall",
        input: ({ context }): PrepareCallInput => ({
          toolCall: context.toolCall,
          ...(context.hookScope ? { hookScope: context.hookScope } : {}),
        }),
        onDone: [
          {
            guard: { type: "settledInPreparation", params: ({ event }) => event.output },
            target: "done",
            actions: { type: "acceptPrepared", params: ({ event }) => event.output },
          },
          {
            guard: { type: "asksApproval", params: ({ event }) => event.output },
            target: "awaitingApproval",
            actions: [{ type: "acceptPrepared", params: ({ event }) => event.output }, "markAsked"],
          },
          { guard: "proceedsWithTimeout", target: "executingWithTimeout", actions: { type: "acceptPrepared", params: ({ event }) => event.output } },
          { guard: "proceeds", target: "executing", actions: { type: "acceptPrepared", params: ({ event }) => event.output } },
          { target: "prepared", actions: { type: "acceptPrepared", params: ({ event }) => event.output } },
        ],
        onError: { target: "done", actions: { type: "settleWithError", params: ({ event }) => ({ error: event.error }) } },
      },
    },
    // Waiting for a human decision. For the batch this call is prepared: it reports so
    // (handshake batches) and remembers the batch's go, to execute once approved.
    awaitingApproval: {
      entry: ["announceApprovalRequest", "reportPrepared"],
      on: {
        "call.execute": { actions: "proceedWhenPrepared" },
        "call.approve": [
          { guard: "proceedsWithTimeout", target: "executingWithTimeout", actions: "markApproved" },
          { guard: "proceeds", target: "executing", actions: "markApproved" },
          { target: "prepared", actions: "markApproved" },
        ],
        // The tool was approved for good (another call's `always`): this call is approved too.
        "call.preapprove": { actions: ["markPreapproved", raise({ type: "call.approve" })] },
        "call.reject": { target: "done", actions: { type: "settleWithRejection", params: ({ event }) => ({ reason: event.reason }) } },
        "call.abort": { target: "done", actions: cancelled },
        "call.cancel": { target: "done", actions: cancelled },
      },
    },
    // Prepared, waiting for the batch's go (`call.execute`); in a capped batch, queued until it fits.
    prepared: {
      entry: "reportPrepared",
      on: {
        "call.execute": [{ guard: "hasTimeout", target: "executingWithTimeout" }, { target: "executing" }],
        "call.cancel": { target: "done", actions: cancelled },
      },
    },
    executing: runningTool,
    // `executing` with the tool's `timeoutMs`: when it passes, leaving stops the tool (its signal aborts).
    executingWithTimeout: { ...runningTool, after: { toolTimeout: { target: "done", actions: "settleTimedOut" } } },
    // The tool threw a retryable error: wait `retry.backoffMs` (doubling), then run it again.
    waitingToRetry: {
      on: { "call.cancel": { target: "done", actions: cancelled } },
      after: { retryBackoff: [{ guard: "hasTimeout", target: "executingWithTimeout" }, { target: "executing" }] },
    },
    finalizing: {
      on: { "call.cancel": { target: "done", actions: cancelled } },
      invoke: {
        id: "afterToolCall",
        src: "afterToolCall",
        input: ({ context }): FinalizeToolCallInput => ({
          toolCall: context.toolCall,
          args: context.args,
          executed: context.settled ?? missingResult(),
          ...(context.hookScope ? { hookScope: context.hookScope } : {}),
        }),
        onDone: { target: "done", actions: { type: "settle", params: settledFromOutput } },
        onError: { target: "done", actions: { type: "settleWithError", params: ({ event }) => ({ error: event.error }) } },
      },
    },
    // Terminal, but not `type: "final"`: the batch owns the actor and stops it
    // with the batch, so no done event can outlive the batch.
    done: {
      entry: ["announceEnd", "reportSettled"],
    },
  },
});
