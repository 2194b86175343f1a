/**
 * The call group: the owner of one batch's tool-call actors.
 *
 * The loop invokes one group per batch. The group spawns the calls — one
 * `toolCall` actor per call, in source order, all at once — itself, or inside
 * chunks of at most {@link CALL_CHUNK_SIZE} when the batch is larger. Leaving the batch stops the group and every call
 * with it. Why chunks: XState copies a parent's children on every spawn and stop,
 * so stopping a parent of n children costs n² — fine for 32, not for 2,000.
 * Calls talk to the loop directly (its ref is in their input); the group only
 * answers the loop's `group.sync` after everything sent before it was handled.
 */
import { sendParent, setup, type AnyActorRef } from "xstate";
import type { ToolCallInput } from "./events.js";
import { toolCallMachine } from "./tool-call.machine.js";

/** Most tool-call actors one chunk owns. */
export const CALL_CHUNK_SIZE = 32;

/** Input of the call group (and of each chunk). */
export interface CallGroupInput {
  calls: ToolCallInput[];
  /** Actor id of each call (the tool call id, made unique within the batch). */
  actorIds: string[];
  /** The loop the calls report to. */
  loop: AnyActorRef;
}

/** Owns up to {@link CALL_CHUNK_SIZE} tool-call actors. */
export const callChunkMachine = setup({
  types: { input: {} as CallGroupInput, context: {} as { size: number } },
  actors: { toolCall: toolCallMachine },
}).createMachine({
  id: "callChunk",
  context: ({ input, spawn }) => {
    input.calls.forEach((call, index) => {
      spawn("toolCall", { id: input.actorIds[index] as string, input: { ...call, loop: input.loop } });
    });
    return { size: input.calls.length };
  },
});

export const callGroupMachine = setup({
  types: {
    input: {} as CallGroupInput,
    context: {} as { size: number },
    events: {} as { type: "group.sync" },
  },
  actors: { callChunk: callChunkMachine, toolCall: toolCallMachine },
  actions: {
    acknowledge: sendParent({ type: "group.synced" }),
  },
}).createMachine({
  id: "callGroup",
  context: ({ input, spawn }) => {
    if (input.calls.length <= CALL_CHUNK_SIZE) {
      input.calls.forEach((call, index) => {
        spawn("toolCall", { id: input.actorIds[index] as string, input: { ...call, loop: input.loop } });
      });
      return { size: input.calls.length };
    }
    for (let start = 0; start < input.calls.length; start += CALL_CHUNK_SIZE) {
      spawn("callChunk", {
        id: `chunk-${start / CALL_CHUNK_SIZE}`,
        input: {
          calls: input.calls.slice(start, start + CALL_CHUNK_SIZE),
          actorIds: input.actorIds.slice(start, start + CALL_CHUNK_SIZE),
          loop: input.loop,
        },
      });
    }
    return { size: input.calls.length };
  },
  on: {
    "group.sync": { actions: "acknowledge" },
  },
});
