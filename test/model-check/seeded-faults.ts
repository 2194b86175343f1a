/**
 * Faulty variants of the loop machine, each breaking one invariant the way a
 * plausible bug would. Shared by the model-check tests and the property tests.
 */
import { assign, enqueueActions } from "xstate";
import { agentLoopMachine, type AgentLoopContext, type ToolBatch } from "../../machines/agent-loop.machine.js";
import { appended } from "../../machines/loop-context.js";
import type { ToolResultMessage } from "../../src/types.js";

type FaultyMachine = typeof agentLoopMachine;

type SettledParams = {
  index: number;
  toolCallId: string;
  toolName: string;
  result: { content?: ToolResultMessage["content"]; details?: unknown; terminate?: boolean };
  isError: boolean;
};

/** The shipped `recordSettled`, with a hook to drop a result and a record of completion order. */
const recordSettledWith = (keep: (params: SettledParams) => boolean) =>
  enqueueActions((({ context, enqueue }: { context: AgentLoopContext; enqueue: unknown }, params: SettledParams) => {
    const batch = context.batch as (ToolBatch & { completionOrder?: number[] }) | undefined;
    if (!batch || batch.results[params.index] !== null) return;
    const queue = enqueue as unknown as { assign: (value: unknown) => void };
    const results = batch.results.slice();
    if (keep(params)) {
      results[params.index] = {
        role: "toolResult",
        toolCallId: params.toolCallId,
        toolName: params.toolName,
        content: params.result.content ?? [],
        details: params.result.details,
        isError: params.isError,
        timestamp: 0,
      };
    }
    const terminates = batch.terminates.slice();
    terminates[params.index] = params.result.terminate === true;
    const running = batch.running.slice();
    const wasRunning = running[params.index] === true;
    running[params.index] = false;
    queue.assign({
      batch: {
        ...batch,
        results,
        terminates,
        running,
        runningCount: batch.runningCount - (wasRunning ? 1 : 0),
        settledCount: batch.settledCount + 1,
        completionOrder: [...(batch.completionOrder ?? []), params.index],
      },
    });
  }) as never) as never;

/** Appends results in the order the calls completed instead of in source order. */
export const appendsInCompletionOrder: FaultyMachine = agentLoopMachine.provide({
  actions: {
    recordSettled: recordSettledWith(() => true),
    appendSettledResults: enqueueActions(({ context, enqueue }) => {
      const batch = context.batch as ToolBatch & { completionOrder?: number[] };
      const done = new Set(context.toolResults.map((result) => result.toolCallId));
      const ready = (batch.completionOrder ?? [])
        .map((index) => batch.results[index])
        .filter((result): result is ToolResultMessage => result !== null && result !== undefined && !done.has(result.toolCallId));
      for (const message of ready) {
        enqueue.emit({ type: "message_start", message });
        enqueue.emit({ type: "message_end", message });
      }
      if (ready.length === 0) return;
      enqueue.assign({
        ...appended(context, ready),
        batch: { ...batch, appended: batch.appended + ready.length },
        toolResults: [...context.toolResults, ...ready],
      });
    }),
  },
});

/** Treats a length-truncated response with tool calls like any other: its calls execute. */
export const executesLengthTruncatedCalls: FaultyMachine = agentLoopMachine.provide({
  guards: { isLengthTruncated: () => false },
});

/** Counts a blocked call as settled but drops its result. */
export const dropsBlockedResult: FaultyMachine = agentLoopMachine.provide({
  actions: {
    recordSettled: recordSettledWith(
      (params) => !/blocked/i.test((params.result.content ?? []).map((block) => ("text" in block ? block.text : "")).join("")),
    ),
  },
});

/** Ignores `run.abort` while a tool batch is in progress. */
export const ignoresAbortWhileExecuting: FaultyMachine = agentLoopMachine.provide({
  actions: {
    markAborted: assign(({ context }: { context: AgentLoopContext }) => (context.batch && context.batch.appended < context.batch.calls.length ? {} : { aborted: true })) as never,
  },
});

/** Forgets that the grace period ran out: after abandoning a batch it asks the next hook, which may never answer. */
export const asksHooksAfterTheAbandon: FaultyMachine = agentLoopMachine.provide({
  guards: { wasAbandoned: () => false },
});

/** Fails only responses without tool calls: a failed response that kept a streamed call (an invalid `done` event) runs it. */
export const runsCallsOfAFailedResponse: FaultyMachine = agentLoopMachine.provide({
  guards: {
    responseFailed: (_: unknown, response: { stopReason: string; content: { type: string }[] }) =>
      response.stopReason === "aborted" || (response.stopReason === "error" && !response.content.some((block) => block.type === "toolCall")),
  } as never,
});
