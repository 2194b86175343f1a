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
 * order given, and passes their reports (`tool.*`) on to the loop.
 */
import { enqueueActions, sendParent, setup } from "xstate";
import { callSystemId, type LoopToCallGroupEvent, type ToolCallInput, type ToolCallToLoopEvent } from "./events.js";
import { toolCallMachine } from "./tool-call.machine.js";

/** Default of the loop's `callsPerGroup`: the most calls the loop, or one group, parents. */
export const CALL_GROUP_SIZE = 32;

/** Input of a call group. */
export interface CallGroupInput {
  calls: ToolCallInput[];
  /** Actor id of each call (the tool call id, made unique within the batch). */
  actorIds: string[];
  /** Register each call under its system id `toolCall:<id>` (the loop's `registersCalls`). */
  registersCalls?: boolean;
}

/** Context of a call group: the actor id of each of its calls, by source index. */
export interface CallGroupContext {
  calls: Record<number, string>;
}

export const callGroupMachine = setup({
  types: {
    input: {} as CallGroupInput,
    context: {} as CallGroupContext,
    events: {} as LoopToCallGroupEvent | ToolCallToLoopEvent,
  },
  actors: { toolCall: toolCallMachine },
  actions: {
    deliver: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== "group.send") return;
      for (const index of event.indexes) {
        const call = context.calls[index];
        if (call !== undefined) enqueue.sendTo(call, event.event);
      }
    }),
    passOn: sendParent(({ event }) => event),
  },
}).createMachine({
  id: "callGroup",
  context: ({ input, spawn }) => {
    const calls: Record<number, string> = {};
    input.calls.forEach((call, position) => {
      const id = input.actorIds[position] as string;
      spawn("toolCall", { id, ...(input.registersCalls ? { systemId: callSystemId(id) } : {}), input: call });
      calls[call.index] = id;
    });
    return { calls };
  },
  on: {
    "group.send": { actions: "deliver" },
    "tool.prepared": { actions: "passOn" },
    "tool.settled": { actions: "passOn" },
  },
});
