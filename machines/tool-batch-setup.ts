/**
 * The tool batch's named guards and actions, which its chart
 * (`tool-batch.machine.ts`) and regions (`batch-*.state.ts`) refer to by name:
 * spawning members, recording their results, the handshake (releasing the
 * prepared), a capped batch's queue, and the abort. No I/O; the context changes
 * only through `assign`.
 */
import { assign, emit, enqueueActions, fromCallback, setup } from "xstate";
import type { AgentEvent, AgentMessage } from "../src/types.js";
import type { BatchToSliceEvent, BatchToToolCallEvent, SliceToBatchEvent, ToolCallInput, ToolCallToBatchEvent } from "./events.js";
import { ABORTED_MESSAGE } from "./tool-call-setup.js";
import { toolCallMachine } from "./tool-call.machine.js";
import { appendMessages } from "./transcript.js";
import { scanReleasable } from "./loop-policies.js";
import {
  abandonWarning,
  memberId,
  memberOf,
  memberSpawn,
  queueOf,
  resultMessage,
  sortedPosition,
  toolNameAt,
  towardsCall,
  unsettledStarted,
  type ToolBatchContext,
  type ToolBatchEvent,
  type ToolBatchInput,
  type ToolBatchOutput,
} from "./tool-batch-layout.js";

/** Stand-in for this machine as its own slices' logic; {@link linkSlices} points it at the machine itself. */
const sliceStandIn = fromCallback<ToolBatchEvent, ToolBatchInput>(() => undefined);

/** The spawn options of a call: its system id only when it has one (set on the options, not spread in). */
function callSpawnOptions(id: string, systemId: string | undefined, input: ToolCallInput): { id: string; systemId?: string; input: ToolCallInput } {
  const options: { id: string; systemId?: string; input: ToolCallInput } = { id, input };
  if (systemId) options.systemId = systemId;
  return options;
}

/** The batch machine's setup: its chart and its regions are built from it. */
export const toolBatchSetup = setup({
  types: {
    context: {} as ToolBatchContext,
    input: {} as ToolBatchInput,
    events: {} as ToolBatchEvent,
    emitted: {} as AgentEvent,
    output: {} as ToolBatchOutput,
  },
  actors: {
    /** One tool call. */
    toolCall: toolCallMachine,
    /** A slice of a large parallel batch: this machine itself (see {@link linkSlices}). */
    toolBatch: sliceStandIn,
  },
  guards: {
    isSequential: ({ context }) => context.layout.mode === "sequential",
    isCapped: ({ context }) => context.layout.caps !== undefined,
    needsHandshake: ({ context }) => context.layout.handshake,
    isSlice: ({ context }) => context.layout.slice,
    allStarted: ({ context }) => context.started >= context.layout.members,
    allSettled: ({ context }) => context.settled >= context.layout.members,
    /** The report is from the member preparing now (not from one cancelled while it waited for its go). */
    isCurrent: ({ context }, params: { index: number }) => memberOf(context, params.index) === context.started - 1,
  },
  actions: {
    /**
     * Spawns every member at once, in source order (parallel batches without a
     * handshake), each started after the step as a spawned child is. One `assign`
     * spawning them all adds them to the batch's children in one step: a
     * `spawnChild` action per member copied the snapshot and its children map
     * once per member, O(members²) per batch.
     */
    spawnAll: assign(({ context, spawn }) => {
      for (let member = 0; member < context.layout.members; member += 1) {
        const { src, id, systemId, input } = memberSpawn(context, member);
        if (src === "toolCall") spawn("toolCall", callSpawnOptions(id, systemId, input as ToolCallInput));
        else spawn("toolBatch", { id, input: input as ToolBatchInput });
      }
      return { started: context.layout.members };
    }),
    /** Spawns the next member: its turn to prepare has come. */
    spawnNext: enqueueActions(({ context, enqueue }) => {
      const { src, id, systemId, input } = memberSpawn(context, context.started);
      if (src === "toolCall") enqueue.spawnChild("toolCall", callSpawnOptions(id, systemId, input as ToolCallInput));
      else enqueue.spawnChild("toolBatch", { id, input: input as ToolBatchInput });
      enqueue.assign({ started: context.started + 1 });
    }),
    markWaiting: assign(({ context }, params: { index: number }) => ({ waiting: [...context.waiting, memberOf(context, params.index)] })),
    /** Lets the waiting members execute, or (after an abort) cancels them. */
    releaseWaiting: enqueueActions(({ context, enqueue }) => {
      const event: BatchToToolCallEvent = context.aborted ? { type: "call.cancel", reason: ABORTED_MESSAGE } : { type: "call.execute" };
      for (const member of context.waiting) enqueue.sendTo(memberId(context, member), event);
      enqueue.assign({ waiting: [] });
    }),
    /** Sequential: lets the prepared call execute, or cancels it after an abort. */
    releasePrepared: enqueueActions(({ context, enqueue }, params: { index: number }) => {
      const event: BatchToToolCallEvent = context.aborted ? { type: "call.cancel", reason: ABORTED_MESSAGE } : { type: "call.execute" };
      enqueue.sendTo(memberId(context, memberOf(context, params.index)), event);
    }),
    /** Records one call's result: in its slot (parallel), or appended and emitted at once (sequential). */
    recordSettled: enqueueActions(({ context, enqueue }, params: Extract<ToolCallToBatchEvent, { type: "tool.settled" }>) => {
      const member = memberOf(context, params.index);
      const allTerminate = context.allTerminate && params.result.terminate === true;
      const message = resultMessage(params);
      const rejected = params.rejected !== undefined ? [...context.rejected, params.index] : context.rejected;
      if (context.layout.mode === "sequential") {
        if (member !== context.settled) return;
        enqueue.emit({ type: "message_start", message });
        enqueue.emit({ type: "message_end", message });
        enqueue.stopChild(memberId(context, member));
        enqueue.assign({ ordered: appendMessages(context.ordered, [message as AgentMessage]), settled: context.settled + 1, allTerminate, rejected });
        return;
      }
      if (context.slots[member] !== null) return;
      const slots = context.slots.slice();
      slots[member] = [message];
      enqueue.assign({ slots, settled: context.settled + 1, allTerminate, rejected });
    }),
    /**
     * Parallel: records one call's result in its slot (a second settle of the same
     * call is ignored). `recordSettled` does the same for a parallel batch; this is
     * its plain `assign`, for the hot path of the `parallel` region.
     */
    recordInSlot: assign(({ context }, params: Extract<ToolCallToBatchEvent, { type: "tool.settled" }>) => {
      const member = memberOf(context, params.index);
      if (context.slots[member] !== null) return {};
      const slots = context.slots.slice();
      slots[member] = [resultMessage(params)];
      return {
        slots,
        settled: context.settled + 1,
        allTerminate: context.allTerminate && params.result.terminate === true,
        rejected: params.rejected !== undefined ? [...context.rejected, params.index] : context.rejected,
      };
    }),
    /** Records a finished slice's results in its slot. */
    recordSlice: assign(({ context }, output: ToolBatchOutput) => {
      const member = memberOf(context, output.offset);
      if (context.slots[member] !== null) return {};
      const slots = context.slots.slice();
      slots[member] = output.results;
      const rejected = output.rejected.length > 0 ? [...context.rejected, ...output.rejected] : context.rejected;
      return { slots, settled: context.settled + 1, allTerminate: context.allTerminate && output.terminates, rejected };
    }),
    /** A slice's whole run of calls is prepared: report it to the parent batch, as a call does. */
    reportPrepared: enqueueActions(({ context, enqueue }) => {
      enqueue.sendParent({ type: "tool.prepared", toolCallId: context.calls[0]?.id ?? "", index: context.layout.offset } satisfies ToolCallToBatchEvent);
    }),
    /**
     * Capped: a member is prepared. A call's index joins the queue; a slice's
     * report brings its queued calls (calls prepare in source order, so the queue
     * stays ascending).
     */
    queuePrepared: assign(({ context }, params: Extract<ToolCallToBatchEvent, { type: "tool.prepared" }>) => {
      const queue = queueOf(context);
      if (context.layout.sliceSize === 0) return { queue: { ...queue, queued: [...queue.queued, params.index] } };
      return params.queued === undefined || params.queued.length === 0 ? {} : { queue: { ...queue, queued: queue.queued.concat(params.queued) } };
    }),
    /** A slice of a capped batch whose calls are prepared: hands its queue to its parent (which releases them from now on). */
    reportQueued: enqueueActions(({ context, enqueue }) => {
      const queue = queueOf(context);
      enqueue.sendParent({ type: "tool.prepared", toolCallId: context.calls[0]?.id ?? "", index: context.layout.offset, queued: queue.queued } satisfies ToolCallToBatchEvent);
      enqueue.assign({ queue: { ...queue, queued: [] } });
    }),
    /**
     * Capped: the call with source index `index` settled. Still queued here (a
     * rejection, an abort while it awaited approval): it leaves the queue. Else a
     * slice passes it up; the batch of the response frees its room (a call that
     * was never queued, rejected in preparation, settles before anything is released:
     * every count is 0 then).
     */
    noteCallSettled: enqueueActions(({ context, enqueue }, params: { index: number }) => {
      const queue = queueOf(context);
      const position = sortedPosition(queue.queued, params.index, queue.head);
      if (position >= 0) {
        enqueue.assign({ queue: { ...queue, queued: queue.queued.slice(queue.head, position).concat(queue.queued.slice(position + 1)), head: 0 } });
        return;
      }
      if (context.layout.slice) {
        enqueue.sendParent({ type: "slice.callSettled", index: params.index } satisfies SliceToBatchEvent);
        return;
      }
      const name = toolNameAt(context, params.index);
      const count = queue.executing[name] ?? 0;
      if (count > 0) enqueue.assign({ queue: { ...queue, executing: { ...queue.executing, [name]: count - 1 } } });
    }),
    /**
     * Capped, the batch of the response: releases the queued calls that fit the
     * caps, in source order ({@link releasable}); the rest keep waiting. After an
     * abort every queued call is cancelled instead (also by a slice, the calls it
     * has not handed up yet): it never starts. Nothing for a batch without
     * caps, so the root lists it on `run.abort` for whichever region the batch is in.
     */
    releaseQueued: enqueueActions(({ context, enqueue }) => {
      const queue = queueOf(context);
      const { caps } = context.layout;
      if (caps === undefined || queue.queued.length <= queue.head || (context.layout.slice && !context.aborted)) return;
      if (context.aborted) {
        for (let position = queue.head; position < queue.queued.length; position += 1) {
          const target = towardsCall(context, queue.queued[position] as number, false);
          if (target) enqueue.sendTo(target.to, target.event);
        }
        enqueue.assign({ queue: { ...queue, queued: [], head: 0 } });
        return;
      }
      const nameOf = (index: number) => toolNameAt(context, index);
      const { release, kept, end } = scanReleasable(caps, queue.executing, queue.queued, queue.head, nameOf, context.layout.lastUncapped);
      if (release.length === 0) return;
      for (const index of release) {
        const target = towardsCall(context, index, true);
        if (target) enqueue.sendTo(target.to, target.event);
      }
      const executing = { ...queue.executing };
      for (const index of release) executing[nameOf(index)] = (executing[nameOf(index)] ?? 0) + 1;
      // Released in order from the head: move the head; else the queue is what was passed over and what was not looked at.
      const rest = kept.length === 0 ? { queued: queue.queued, head: end } : { queued: kept.concat(queue.queued.slice(end)), head: 0 };
      enqueue.assign({ queue: { ...rest, executing } });
    }),
    /** A slice of a capped batch: passes its parent's go (or cancel) for one call on to the member that holds it. */
    passToCall: enqueueActions(({ context, enqueue }, params: BatchToSliceEvent) => {
      const target = towardsCall(context, params.index, params.type === "slice.execute");
      if (target) enqueue.sendTo(target.to, target.event);
    }),
    markAborted: assign({ aborted: true }),
    /** Tells every started, unsettled member the run was aborted: a call awaiting approval settles aborted, the others ignore it; a slice passes it on. */
    abortUnsettled: enqueueActions(({ context, enqueue }) => {
      for (const member of unsettledStarted(context)) {
        enqueue.sendTo(memberId(context, member), context.layout.sliceSize === 0 ? { type: "call.abort", reason: ABORTED_MESSAGE } : { type: "run.abort" });
      }
    }),
    /** Cancels every started member that has not settled: each settles with the aborted result. */
    cancelUnsettled: enqueueActions(({ context, enqueue }) => {
      for (const member of unsettledStarted(context)) enqueue.sendTo(memberId(context, member), { type: "call.cancel", reason: ABORTED_MESSAGE });
      enqueue.assign({ waiting: [] });
    }),
    warnAbandoned: emit(({ context }) => abandonWarning(context)),
  },
});
