/**
 * One tool call, as its own actor:
 *   queued → preparing → prepared → executing → (finalizing) → done
 * or queued → preparing → done with an immediate error result
 * (unknown tool, invalid arguments, blocked, aborted, refused).
 *
 * One is spawned per call, in source order, with the tool call id as actor id (by
 * the loop, or by a call group in a large batch). It waits for the loop at two points — `queued` until
 * `call.prepare`, `prepared` until `call.execute` (or `call.cancel` after an
 * abort) — which is how the loop keeps preparation one at a time in source order
 * and execution parallel or sequential; told `call.start` instead, it prepares and
 * executes without waiting (parallel batches without a handshake). It announces its own
 * `tool_execution_start` (on starting to prepare) and `tool_execution_end` (on
 * settling) with the chart's `emit`, so those keep their order with preparation and
 * completion. It reports `tool.prepared` when the loop waits for it (`reportsPreparation`),
 * `tool.executed` when a finalizing hook follows, and exactly one `tool.settled`
 * on reaching `done` — always to its parent (the loop, or the call group that
 * passes it on).
 *
 * No I/O here. `prepareArguments` (lookup, shim, validation) is a named action;
 * the tool's `execute` runs in the invoked `executeTool` actor of `executing` (its
 * own signal aborts when the call is stopped); `beforeToolCall` and `afterToolCall`
 * are invoked actors of their states. `src/actors/` provides the real ones. The
 * context is plain data, changed only through `assign`.
 */
import { assign, emit, enqueueActions, fromPromise, sendParent, setup } from "xstate";
import type { AgentEvent, AgentToolResult, BeforeToolCallResult } from "../src/types.js";
import type { LoopToToolCallEvent, SettledToolCall, ToolCallInput, ToolCallToLoopEvent } from "./events.js";
import { describeThrown } from "../src/describe-thrown.js";

/** Context of a tool-call actor. JSON-serializable. */
export interface ToolCallContext extends ToolCallInput {
  /** Validated (and possibly hook-mutated) arguments, once prepared. */
  args?: unknown;
  /** The settled result, once known. */
  settled?: SettledToolCall;
  /** Told to `call.start`: goes on from preparation to execution without waiting for the loop. */
  proceeds?: boolean;
}

/** Builds the error result every failure on a tool's path becomes. */
export function errorResult(text: string): AgentToolResult<unknown> {
  return { content: [{ type: "text", text }], details: {} };
}

/** Text of an error caught from a hook or tool. Never throws, whatever was thrown (see {@link describeThrown}). */
export const errorText = describeThrown;

/** Input of the `beforeToolCall` and `executeTool` actors. */
export interface ExecuteToolInput {
  toolCall: ToolCallInput["toolCall"];
  args: unknown;
}

/** Input of the `afterToolCall` actor. */
export interface FinalizeToolCallInput extends ExecuteToolInput {
  executed: SettledToolCall;
}

/** Text of the result when `beforeToolCall` blocks without a reason. */
export const BLOCKED_MESSAGE = "Tool execution was blocked";

export const missingResult = (): SettledToolCall => ({ result: errorResult("Tool call ended without a result"), isError: true });

const settledFromOutput = ({ event }: { event: { output: SettledToolCall } }): SettledToolCall => event.output;

export const toolCallMachine = setup({
  types: {
    context: {} as ToolCallContext,
    input: {} as ToolCallInput,
    events: {} as LoopToToolCallEvent,
    emitted: {} as AgentEvent,
  },
  actors: {
    /** Asks `beforeToolCall`. Stand-in: allows. */
    beforeToolCall: fromPromise<BeforeToolCallResult | undefined, ExecuteToolInput>(async () => undefined),
    /**
     * Runs the tool with the call's own signal (aborted when this call stops, and
     * by the run's abort). Never rejects: a throwing tool resolves to an error
     * result. Stand-in: an empty success.
     */
    executeTool: fromPromise<SettledToolCall, ExecuteToolInput, AgentEvent>(async () => ({ result: { content: [], details: {} }, isError: false })),
    /** Applies `afterToolCall` overrides. Stand-in: keeps the executed result. */
    afterToolCall: fromPromise<SettledToolCall, FinalizeToolCallInput>(async ({ input }) => input.executed),
  },
  guards: {
    isRefused: ({ context }) => context.refusal !== undefined,
    isSettled: ({ context }) => context.settled !== undefined,
    proceeds: ({ context }) => context.proceeds === true,
    consultsBeforeHook: ({ context }) => context.hooks?.beforeToolCall === true,
    consultsAfterHook: ({ context }) => context.hooks?.afterToolCall === true,
    isBlocked: (_, verdict: BeforeToolCallResult | undefined) => verdict?.block === true,
  },
  actions: {
    /** Looks the tool up, applies `prepareArguments` and validates. Stand-in: accepts the raw arguments. */
    prepareArguments: assign({ args: ({ context }) => context.toolCall.arguments }),
    /** Remembers that the loop said `call.start`: execute once prepared. */
    proceedWhenPrepared: assign({ proceeds: true }),
    /** Records the call's outcome: the executed (or finalized) result. */
    settle: assign((_, settled: SettledToolCall) => ({ settled })),
    settleWithRefusal: assign(({ context }) => ({ settled: { result: errorResult(context.refusal ?? ""), isError: true } })),
    settleBlocked: assign((_, verdict: BeforeToolCallResult | undefined) => {
      const reason: unknown = verdict?.reason;
      const text = reason === undefined || reason === "" ? BLOCKED_MESSAGE : describeThrown(reason);
      const result = errorResult(text);
      return { settled: { result: verdict?.terminate === undefined ? result : { ...result, terminate: verdict.terminate }, isError: true } };
    }),
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
      };
    }),
    reportPrepared: enqueueActions(({ context, enqueue }) => {
      if (!context.reportsPreparation) return;
      enqueue.sendParent({ type: "tool.prepared", toolCallId: context.toolCall.id, index: context.index } satisfies ToolCallToLoopEvent);
    }),
    reportExecuted: sendParent(({ context }): ToolCallToLoopEvent => ({
      type: "tool.executed",
      toolCallId: context.toolCall.id,
      index: context.index,
    })),
    reportSettled: sendParent(({ context }): ToolCallToLoopEvent => {
      const settled = context.settled ?? missingResult();
      return {
        type: "tool.settled",
        toolCallId: context.toolCall.id,
        toolName: context.toolCall.name,
        index: context.index,
        result: settled.result,
        isError: settled.isError,
      };
    }),
  },
}).createMachine({
  id: "toolCall",
  context: ({ input }) => ({ ...input }),
  initial: "queued",
  states: {
    queued: {
      on: {
        "call.prepare": "preparing",
        "call.start": { target: "preparing", actions: "proceedWhenPrepared" },
      },
    },
    preparing: {
      entry: "announceStart",
      // The loop gave up waiting after an abort: the hook's late answer is ignored.
      on: {
        "call.cancel": {
          target: "done",
          actions: { type: "settleWithError", params: ({ event }) => ({ error: event.reason }) },
        },
      },
      initial: "validating",
      states: {
        validating: {
          always: [
            { guard: "isRefused", target: "#toolCall.done", actions: "settleWithRefusal" },
            { target: "checked", actions: "prepareArguments" },
          ],
        },
        checked: {
          always: [
            { guard: "isSettled", target: "#toolCall.done" },
            { guard: "consultsBeforeHook", target: "consultingHook" },
            { guard: "proceeds", target: "#toolCall.executing" },
            { target: "#toolCall.prepared" },
          ],
        },
        consultingHook: {
          invoke: {
            id: "beforeToolCall",
            src: "beforeToolCall",
            input: ({ context }) => ({ toolCall: context.toolCall, args: context.args }),
            onDone: [
              {
                guard: { type: "isBlocked", params: ({ event }) => event.output },
                target: "#toolCall.done",
                actions: { type: "settleBlocked", params: ({ event }) => event.output },
              },
              { target: "#toolCall.prepared" },
            ],
            onError: {
              target: "#toolCall.done",
              actions: { type: "settleWithError", params: ({ event }) => ({ error: event.error }) },
            },
          },
        },
      },
    },
    prepared: {
      entry: "reportPrepared",
      on: {
        "call.execute": "executing",
        "call.cancel": {
          target: "done",
          actions: { type: "settleWithError", params: ({ event }) => ({ error: event.reason }) },
        },
      },
    },
    executing: {
      // The loop gave up waiting after an abort: leaving stops the tool's actor (its signal aborts) and ignores a late settle.
      on: {
        "call.cancel": {
          target: "done",
          actions: { type: "settleWithError", params: ({ event }) => ({ error: event.reason }) },
        },
      },
      invoke: {
        id: "executeTool",
        src: "executeTool",
        input: ({ context }) => ({ toolCall: context.toolCall, args: context.args }),
        onDone: [
          {
            guard: "consultsAfterHook",
            target: "finalizing",
            actions: [{ type: "settle", params: settledFromOutput }, "reportExecuted"],
          },
          { target: "done", actions: { type: "settle", params: settledFromOutput } },
        ],
        onError: {
          target: "done",
          actions: { type: "settleWithError", params: ({ event }) => ({ error: event.error }) },
        },
      },
    },
    finalizing: {
      on: {
        "call.cancel": {
          target: "done",
          actions: { type: "settleWithError", params: ({ event }) => ({ error: event.reason }) },
        },
      },
      invoke: {
        id: "afterToolCall",
        src: "afterToolCall",
        input: ({ context }) => ({
          toolCall: context.toolCall,
          args: context.args,
          executed: context.settled ?? missingResult(),
        }),
        onDone: { target: "done", actions: { type: "settle", params: settledFromOutput } },
        onError: {
          target: "done",
          actions: { type: "settleWithError", params: ({ event }) => ({ error: event.error }) },
        },
      },
    },
    // Terminal, but not `type: "final"`: the loop (or a call group) owns the actor
    // and stops it with the batch, so no done event can outlive the loop.
    done: {
      entry: ["announceEnd", "reportSettled"],
    },
  },
});
