/**
 * Faulty variants of the loop machine, each breaking one invariant the way a
 * plausible bug would. Shared by the model-check tests and the property tests.
 */
import { assign, enqueueActions } from "xstate";
import { agentLoopMachine, type AgentLoopContext } from "../../machines/agent-loop.machine.js";
import { toolCallsOf } from "../../machines/loop-context.js";
import { callActorId, linkSlices, sliceId, toolBatchMachine, type ToolBatchContext } from "../../machines/tool-batch.machine.js";
import type { ToolResultMessage } from "../../src/types.js";

type FaultyMachine = typeof agentLoopMachine;

type SettledParams = {
  index: number;
  toolCallId: string;
  toolName: string;
  result: { content?: ToolResultMessage["content"]; details?: unknown; terminate?: boolean };
  isError: boolean;
};

/** The loop with a faulty tool batch (its slices too). */
const withBatch = (batch: typeof toolBatchMachine): FaultyMachine => agentLoopMachine.provide({ actors: { toolBatch: linkSlices(batch) } });

/**
 * The shipped `recordSettled` / `recordInSlot` of a parallel batch (the faulty
 * configurations are parallel and unsliced), with a hook to drop a result and one
 * to choose the slot a result goes in (shipped: the call's own).
 */
const recordSettledWith = (keep: (params: SettledParams) => boolean, slotOf: (context: ToolBatchContext, member: number) => number = (_, member) => member) =>
  enqueueActions((({ context, enqueue }: { context: ToolBatchContext; enqueue: unknown }, params: SettledParams) => {
    const slot = slotOf(context, params.index - context.layout.offset);
    if (context.slots[slot] !== null) return;
    const queue = enqueue as unknown as { assign: (value: unknown) => void };
    const slots = context.slots.slice();
    const message: ToolResultMessage = {
      role: "toolResult",
      toolCallId: params.toolCallId,
      toolName: params.toolName,
      content: params.result.content ?? [],
      details: params.result.details,
      isError: params.isError,
      timestamp: 0,
    };
    slots[slot] = keep(params) ? [message] : [];
    queue.assign({
      slots,
      settled: context.settled + 1,
      allTerminate: context.allTerminate && params.result.terminate === true,
    });
  }) as never) as never;

/** The faulty recorder as both of the batch's recorders of a settled call: `recordSettled` and the parallel region's `recordInSlot`. */
const inEveryRecorder = (faulty: ReturnType<typeof recordSettledWith>) => ({ recordSettled: faulty, recordInSlot: faulty });

/** Puts each result in the slot of the order its call completed in, so results are emitted and appended in completion order instead of source order. */
export const appendsInCompletionOrder: FaultyMachine = withBatch(
  toolBatchMachine.provide({ actions: inEveryRecorder(recordSettledWith(() => true, (context) => context.settled)) }),
);

/** Treats a length-truncated response with tool calls like any other: its calls execute. */
export const executesLengthTruncatedCalls: FaultyMachine = agentLoopMachine.provide({
  guards: { isLengthTruncated: () => false },
});

/** Counts a blocked call as settled but drops its result. */
export const dropsBlockedResult: FaultyMachine = withBatch(
  toolBatchMachine.provide({
    actions: inEveryRecorder(
      recordSettledWith((params) => !/blocked/i.test((params.result.content ?? []).map((block) => ("text" in block ? block.text : "")).join(""))),
    ),
  }),
);

/**
 * Ignores `run.abort` while a tool batch is in progress (the response has calls
 * and their results are not in yet): the loop does not note it, nor tell the batch.
 */
export const ignoresAbortWhileExecuting: FaultyMachine = agentLoopMachine.provide({
  actions: {
    markAborted: assign(({ context }: { context: AgentLoopContext }) =>
      toolCallsOf(context.assistant).length > 0 && context.toolResults.length === 0 ? {} : { aborted: true },
    ) as never,
    forwardToBatch: () => undefined,
  },
});

/**
 * The direct path forgets its calls when the abort's grace period runs out:
 * it neither warns nor cancels them, so a tool that ignores the abort hangs the run.
 */
export const keepsWaitingOnTheDirectCalls: FaultyMachine = agentLoopMachine.provide({
  actions: { abandonAloneCalls: () => undefined },
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

/**
 * Releases every queued call of a capped batch at once, ignoring the caps (a
 * tool's `concurrency`, `maxParallelCalls`): the calls still prepare one at a
 * time and wait, but nothing holds them back once they are all prepared.
 */
export const releasesAllQueuedCalls: FaultyMachine = withBatch(
  toolBatchMachine.provide({
    actions: {
      releaseQueued: enqueueActions(({ context, enqueue }: { context: ToolBatchContext; enqueue: unknown }) => {
        const queued = (context.queue?.queued ?? []).slice(context.queue?.head ?? 0);
        if (context.layout.slice || queued.length === 0) return;
        const queue = enqueue as unknown as { sendTo: (to: string, event: unknown) => void; assign: (value: unknown) => void };
        for (const index of queued) {
          const member = context.layout.sliceSize === 0 ? index - context.layout.offset : Math.floor((index - context.layout.offset) / context.layout.sliceSize);
          if (context.slots[member] !== null) continue;
          const execute = context.aborted ? { type: "call.cancel", reason: "Operation aborted" } : { type: "call.execute" };
          if (context.layout.sliceSize === 0) queue.sendTo(callActorId(index), execute);
          else queue.sendTo(sliceId(member), { type: context.aborted ? "slice.cancel" : "slice.execute", index });
        }
        const executing: Record<string, number> = { ...context.queue?.executing };
        for (const index of queued) {
          const name = (context.calls[index - context.layout.offset] as { name: string }).name;
          executing[name] = (executing[name] ?? 0) + 1;
        }
        queue.assign({ queue: { queued: [], head: 0, executing } });
      }) as never,
    },
  }),
);
