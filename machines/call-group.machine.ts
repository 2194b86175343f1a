/**
 * A call group: the parent of some of a large batch's tool-call actors, and the
 * loop's post office to them.
 *
 * The loop spawns the calls of a batch itself, one `toolCall` actor per call, in
 * source order — unless the batch has more than the loop's `callsPerGroup`
 * calls (32 by default). Then it spawns call groups instead, each owning that
 * many calls at most. Why groups: XState copies a parent's children on every
 * spawn and stop, so one parent of n calls costs n² to tear down — fine for 32,
 * not for 2,000. Leaving the batch stops every call, or every group and its calls.
 *
 * The loop addresses a grouped call through its group (`group.send` with the
 * calls' source indexes); the group delivers each event to those calls in the
 * order given. Calls report to the loop directly (its ref is in their input).
 */
import { enqueueActions, setup, type AnyActorRef } from "xstate";
import type { LoopToCallGroupEvent, ToolCallInput } from "./events.js";
import { toolCallMachine } from "./tool-call.machine.js";

/** Default of the loop's `callsPerGroup`: the most calls the loop, or one group, parents. */
export const CALL_GROUP_SIZE = 32;

/** Input of a call group. */
export interface CallGroupInput {
  calls: ToolCallInput[];
  /** Actor id of each call (the tool call id, made unique within the batch). */
  actorIds: string[];
  /** The loop the calls report to. */
  loop: AnyActorRef;
}

/** Context of a call group: its call actors by source index. */
export interface CallGroupContext {
  calls: Record<number, AnyActorRef>;
}

export const callGroupMachine = setup({
  types: {
    input: {} as CallGroupInput,
    context: {} as CallGroupContext,
    events: {} as LoopToCallGroupEvent,
  },
  actors: { toolCall: toolCallMachine },
  actions: {
    deliver: enqueueActions(({ context, event, enqueue }) => {
      for (const index of event.indexes) {
        const call = context.calls[index];
        if (call) enqueue.sendTo(call, event.event);
      }
    }),
  },
}).createMachine({
  id: "callGroup",
  context: ({ input, spawn }) => {
    const calls: Record<number, AnyActorRef> = {};
    input.calls.forEach((call, position) => {
      calls[call.index] = spawn("toolCall", { id: input.actorIds[position] as string, input: { ...call, loop: input.loop } });
    });
    return { calls };
  },
  on: {
    "group.send": { actions: "deliver" },
  },
});
