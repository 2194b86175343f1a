/**
 * One tool call, as its own actor:
 *   queued → preparing → (prepared) → executing → finalizing → (settled) → done,
 * or queued → preparing → (settled) → done with an immediate error result.
 *
 * The loop spawns one of these per call, in source order, with the tool call id
 * as actor id. The actor tells the loop where it is (`tool.queued`,
 * `tool.prepared`, `tool.executed`) and reports exactly one `tool.settled`. It
 * waits for the loop at three points — `queued` until `call.prepare`, `prepared`
 * until `call.execute` (or `call.cancel` after an abort), `settled` until
 * `call.release` — which is how the loop keeps preparation one at a time in source
 * order, execution parallel or sequential, and appending in source order. No I/O here: `prepareToolCall`, `executeTool` and `finalizeToolCall`
 * are named actors that `src/actors/` provides.
 */
import { assign, fromCallback, fromPromise, sendParent, setup } from "xstate";
import type { AgentToolResult } from "../src/types.js";
import type {
  ExecuteToolEvent,
  LoopToToolCallEvent,
  SettledToolCall,
  ToolCallInput,
  ToolCallPreparation,
  ToolCallToLoopEvent,
} from "./events.js";

/** Context of a tool-call actor. JSON-serializable. */
export interface ToolCallContext extends ToolCallInput {
  /** Validated (and possibly hook-mutated) arguments, once prepared. */
  args?: unknown;
  /** The settled result, once known. */
  settled?: SettledToolCall;
}

/** Builds the error result every failure on a tool's path becomes. */
export function errorResult(text: string): AgentToolResult<unknown> {
  return { content: [{ type: "text", text }], details: {} };
}

/** Text of an error caught from a hook or tool. */
export function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === "string" ? error : JSON.stringify(error) ?? String(error);
}

/** Input of the `executeTool` actor. */
export interface ExecuteToolInput {
  toolCall: ToolCallInput["toolCall"];
  args: unknown;
}

/** Input of the `finalizeToolCall` actor. */
export interface FinalizeToolCallInput extends ExecuteToolInput {
  executed: SettledToolCall;
}

export const toolCallMachine = setup({
  types: {
    context: {} as ToolCallContext,
    input: {} as ToolCallInput,
    events: {} as LoopToToolCallEvent | ExecuteToolEvent,
    output: {} as SettledToolCall,
  },
  actors: {
    /** Looks the tool up, shims and validates the arguments, asks `beforeToolCall`. Stand-in: accepts the raw arguments. */
    prepareToolCall: fromPromise<ToolCallPreparation, ToolCallInput>(async ({ input }) => ({
      kind: "prepared",
      args: input.toolCall.arguments,
    })),
    /** Runs the tool; sends `execute.update` per partial result and one `execute.done`. Stand-in: empty success. */
    executeTool: fromCallback<{ type: "noop" }, ExecuteToolInput>(({ sendBack }) => {
      sendBack({ type: "execute.done", result: { content: [], details: {} }, isError: false } satisfies ExecuteToolEvent);
    }),
    /** Applies `afterToolCall` overrides. Stand-in: keeps the executed result. */
    finalizeToolCall: fromPromise<SettledToolCall, FinalizeToolCallInput>(async ({ input }) => input.executed),
  },
  guards: {
    isRefused: ({ context }) => context.refusal !== undefined,
    settlesImmediately: (_, output: ToolCallPreparation) => output.kind === "immediate",
  },
  actions: {
    settleWithRefusal: assign({
      settled: ({ context }) => ({ result: errorResult(context.refusal ?? ""), isError: true }),
    }),
    reportQueued: sendParent(({ context }): ToolCallToLoopEvent => ({
      type: "tool.queued",
      toolCallId: context.toolCall.id,
      index: context.index,
    })),
    reportPrepared: sendParent(({ context }): ToolCallToLoopEvent => ({
      type: "tool.prepared",
      toolCallId: context.toolCall.id,
      index: context.index,
    })),
    reportExecuted: sendParent(({ context }): ToolCallToLoopEvent => ({
      type: "tool.executed",
      toolCallId: context.toolCall.id,
      index: context.index,
    })),
    forwardUpdate: sendParent(({ context }, params: { partialResult: AgentToolResult<unknown> }): ToolCallToLoopEvent => ({
      type: "tool.update",
      toolCallId: context.toolCall.id,
      toolName: context.toolCall.name,
      args: context.toolCall.arguments,
      partialResult: params.partialResult,
    })),
    reportSettled: sendParent(({ context }): ToolCallToLoopEvent => {
      const settled = context.settled ?? { result: errorResult("Tool call ended without a result"), isError: true };
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
      entry: "reportQueued",
      on: { "call.prepare": "preparing" },
    },
    preparing: {
      always: { guard: "isRefused", target: "settled", actions: "settleWithRefusal" },
      invoke: {
        id: "prepareToolCall",
        src: "prepareToolCall",
        input: ({ context }) => ({ toolCall: context.toolCall, index: context.index }),
        onDone: [
          {
            guard: { type: "settlesImmediately", params: ({ event }) => event.output },
            target: "settled",
            actions: assign({
              settled: ({ event }) =>
                event.output.kind === "immediate" ? { result: event.output.result, isError: true } : undefined,
            }),
          },
          {
            target: "prepared",
            actions: assign({ args: ({ event }) => (event.output.kind === "prepared" ? event.output.args : undefined) }),
          },
        ],
        onError: {
          target: "settled",
          actions: assign({ settled: ({ event }) => ({ result: errorResult(errorText(event.error)), isError: true }) }),
        },
      },
    },
    prepared: {
      entry: "reportPrepared",
      on: {
        "call.execute": "executing",
        "call.cancel": {
          target: "settled",
          actions: assign({ settled: ({ event }) => ({ result: errorResult(event.reason), isError: true }) }),
        },
      },
    },
    executing: {
      invoke: {
        id: "executeTool",
        src: "executeTool",
        input: ({ context }) => ({ toolCall: context.toolCall, args: context.args }),
      },
      on: {
        "execute.update": {
          actions: { type: "forwardUpdate", params: ({ event }) => ({ partialResult: event.partialResult }) },
        },
        "execute.done": {
          target: "finalizing",
          actions: assign({ settled: ({ event }) => ({ result: event.result, isError: event.isError }) }),
        },
      },
    },
    finalizing: {
      entry: "reportExecuted",
      invoke: {
        id: "finalizeToolCall",
        src: "finalizeToolCall",
        input: ({ context }) => ({
          toolCall: context.toolCall,
          args: context.args,
          executed: context.settled ?? { result: errorResult("Tool produced no result"), isError: true },
        }),
        onDone: { target: "settled", actions: assign({ settled: ({ event }) => event.output }) },
        onError: {
          target: "settled",
          actions: assign({ settled: ({ event }) => ({ result: errorResult(errorText(event.error)), isError: true }) }),
        },
      },
    },
    settled: {
      entry: "reportSettled",
      on: { "call.release": "done" },
    },
    // Reached once the loop has appended the result and released the call; the
    // loop waits for this done event, so none can arrive after the run ended.
    done: { type: "final" },
  },
  output: ({ context }) => context.settled ?? { result: errorResult("Tool call ended without a result"), isError: true },
});
