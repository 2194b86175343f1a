/**
 * The call group: the owner of one batch's tool-call actors, and the loop's
 * post office to them.
 *
 * The loop invokes one group per batch. The group spawns the calls — one
 * `toolCall` actor per call, in source order, all at once — itself, or inside
 * chunks of at most {@link CALL_CHUNK_SIZE} when the batch is larger. Leaving the
 * batch stops the group and every call with it. Why chunks: XState copies a
 * parent's children on every spawn and stop, so stopping a parent of n children
 * costs n² — fine for 32, not for 2,000.
 *
 * The loop addresses calls by source index (`group.send`); the group delivers
 * each event to those calls in the order given. Calls report to the loop
 * directly (its ref is in their input).
 */
import { enqueueActions, setup, type AnyActorRef } from "xstate";
import type { LoopToCallGroupEvent, ToolCallInput } from "./events.js";
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

/** Context of the group and of a chunk: the call actors, by source index within it. */
export interface CallGroupContext {
  calls: AnyActorRef[];
}

/** Owns up to {@link CALL_CHUNK_SIZE} tool-call actors. */
export const callChunkMachine = setup({
  types: { input: {} as CallGroupInput, context: {} as CallGroupContext },
  actors: { toolCall: toolCallMachine },
}).createMachine({
  id: "callChunk",
  context: ({ input, spawn }) => ({
    calls: input.calls.map((call, index) =>
      spawn("toolCall", { id: input.actorIds[index] as string, input: { ...call, loop: input.loop } }),
    ),
  }),
});

export const callGroupMachine = setup({
  types: {
    input: {} as CallGroupInput,
    context: {} as CallGroupContext,
    events: {} as LoopToCallGroupEvent,
  },
  actors: { callChunk: callChunkMachine, toolCall: toolCallMachine },
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
    if (input.calls.length <= CALL_CHUNK_SIZE) {
      return {
        calls: input.calls.map((call, index) =>
          spawn("toolCall", { id: input.actorIds[index] as string, input: { ...call, loop: input.loop } }),
        ),
      };
    }
    const calls: AnyActorRef[] = [];
    for (let start = 0; start < input.calls.length; start += CALL_CHUNK_SIZE) {
      const chunk = spawn("callChunk", {
        id: `chunk-${start / CALL_CHUNK_SIZE}`,
        input: {
          calls: input.calls.slice(start, start + CALL_CHUNK_SIZE),
          actorIds: input.actorIds.slice(start, start + CALL_CHUNK_SIZE),
          loop: input.loop,
        },
      });
      // A spawned chunk has its initial snapshot (and so its calls) at once.
      calls.push(...(chunk.getSnapshot() as { context: CallGroupContext }).context.calls);
    }
    return { calls };
  },
  on: {
    "group.send": { actions: "deliver" },
  },
});
