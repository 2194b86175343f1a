/**
 * The two floor charts of the benchmark, doing no work besides being charts.
 *
 * The *least chart* is the least the brief allows: a loop with only the required
 * states (requesting → dispatching → executing → appending → requesting | done),
 * one long-lived model actor answering each request on a microtask, and one
 * spawned actor per tool call (executing → done, reporting to the loop); batches
 * over 32 calls are spawned in chunk actors of 32, as loopchart does, because
 * XState copies a parent's children on every stop (n² for one parent of n). No
 * events to a sink, no messages built, no validation, no hooks.
 *
 * The *structure floor* has the actors and steps loopchart is required to have
 * (a request actor and a batch machine per turn, a call machine per call with its
 * invoked execute actor) and nothing else. `xstate-floor.ts` runs both beside pi
 * and loopchart; `beside-generate-text.ts` runs the structure floor beside the AI
 * SDK's `generateText`.
 */
import { assign, createActor, createMachine, enqueueActions, fromCallback, fromPromise, sendParent, sendTo, setup, stopChild, type AnyActorRef } from "xstate";
import { appendMessages, transcriptOf, type Transcript } from "../machines/transcript.js";
import { SLICE_SIZE, sliceSizeFor } from "../machines/tool-batch.machine.js";
import type { AgentMessage } from "../src/types.js";
import type { Workload } from "./workloads.js";

/** What a floor batch keeps while its members (calls, or slices of calls) settle: one slot of results per member. */
export interface SlotBatch<T> {
  /** Source index of the batch's first call: 0, or where a slice starts. */
  offset: number;
  /** Calls per slice; 0 when the batch parents its calls itself. */
  sliceSize: number;
  members: number;
  results: (T[] | null)[];
  settled: number;
}

/** A batch of `count` calls, sliced exactly as loopchart's batch is, nothing settled yet. */
export function slotLayout<T>(count: number): Omit<SlotBatch<T>, "offset"> {
  const sliceSize = sliceSizeFor(count, SLICE_SIZE);
  const members = sliceSize === 0 ? count : Math.ceil(count / sliceSize);
  return { sliceSize, members, results: Array.from({ length: members }, () => null), settled: 0 };
}

/** A copy of `slots` with `value` in slot `slot`: never changed in place. */
function withSlot<T>(slots: readonly (T | null)[], slot: number, value: T): (T | null)[] {
  const next = slots.slice();
  next[slot] = value;
  return next;
}

/** A call settled: its result fills the call's own slot. */
export function settleCall<T>(batch: SlotBatch<T>, index: number, result: T): Pick<SlotBatch<T>, "results" | "settled"> {
  return { results: withSlot(batch.results, index - batch.offset, [result]), settled: batch.settled + 1 };
}

/** A slice finished: its results, in source order, fill the slice's slot. */
export function settleSlice<T>(batch: SlotBatch<T>, output: { offset: number; results: T[] }): Pick<SlotBatch<T>, "results" | "settled"> {
  return { results: withSlot(batch.results, (output.offset - batch.offset) / batch.sliceSize, output.results), settled: batch.settled + 1 };
}

/** The batch's output: every slot's results, in source order. */
export function slotOutput<T>(batch: SlotBatch<T>): { offset: number; results: T[] } {
  return { offset: batch.offset, results: batch.results.flatMap((slot) => slot ?? []) };
}

type CallEvent = { type: "call.done" };
type LoopEvent = { type: "model.done"; calls: number } | { type: "tool.settled"; index: number };

/** One tool call: runs (a resolved promise stands for the tool) and reports to the loop. */
const floorCall = setup({
  types: { input: {} as { index: number; loop: AnyActorRef }, context: {} as { index: number; loop: AnyActorRef }, events: {} as CallEvent },
  actions: {
    run: ({ self }) => {
      void Promise.resolve().then(() => self.send({ type: "call.done" }));
    },
  },
}).createMachine({
  context: ({ input }) => input,
  initial: "executing",
  states: {
    executing: { entry: "run", on: { "call.done": "done" } },
    done: { entry: sendTo(({ context }) => context.loop, ({ context }): LoopEvent => ({ type: "tool.settled", index: context.index })) },
  },
});

/** Most calls one parent spawns; larger batches go through chunks. */
const CHUNK = SLICE_SIZE;

/** Owns up to {@link CHUNK} calls of a large batch. */
const floorChunk = setup({
  types: { input: {} as { from: number; count: number; loop: AnyActorRef } },
  actors: { call: floorCall },
}).createMachine({
  context: ({ input, spawn }) => ({
    calls: Array.from({ length: input.count }, (_, offset) => spawn("call", { input: { index: input.from + offset, loop: input.loop } })),
  }),
});

interface FloorContext {
  turnsLeft: number;
  calls: number;
  /** The batch's calls, or its chunks when it has more than {@link CHUNK}. */
  pending: AnyActorRef[];
  settled: number;
  /** Every call settled in the run, checked against the workload so the chart cannot skip work. */
  settledTotal: number;
  messages: unknown[];
}

/** The loop: the brief's named states and nothing else. */
export const floorLoop = setup({
  types: { input: {} as { turns: number; calls: number }, context: {} as FloorContext, events: {} as LoopEvent },
  actors: {
    model: fromCallback<{ type: "request"; toolTurn: boolean; calls: number }>(({ sendBack, receive }) => {
      receive((request) => {
        void Promise.resolve().then(() => sendBack({ type: "model.done", calls: request.toolTurn ? request.calls : 0 }));
      });
    }),
    call: floorCall,
    chunk: floorChunk,
  },
}).createMachine({
  context: ({ input }) => ({ turnsLeft: input.turns, calls: input.calls, pending: [], settled: 0, settledTotal: 0, messages: [] }),
  invoke: { id: "model", src: "model" },
  initial: "requesting",
  states: {
    requesting: {
      entry: sendTo("model", ({ context }) => ({ type: "request" as const, toolTurn: context.turnsLeft > 0, calls: context.calls })),
      on: {
        "model.done": [
          { guard: ({ event }) => event.calls === 0, target: "done" },
          { target: "dispatching", actions: assign({ settled: 0, messages: ({ context }) => (context.messages.push("assistant"), context.messages) }) },
        ],
      },
    },
    dispatching: {
      entry: assign({
        pending: ({ context, spawn, self }) =>
          context.calls <= CHUNK
            ? Array.from({ length: context.calls }, (_, index) => spawn("call", { input: { index, loop: self } }))
            : Array.from({ length: Math.ceil(context.calls / CHUNK) }, (_, chunk) =>
                spawn("chunk", { input: { from: chunk * CHUNK, count: Math.min(CHUNK, context.calls - chunk * CHUNK), loop: self } }),
              ),
      }),
      always: "executing",
    },
    executing: {
      on: {
        "tool.settled": { actions: assign({ settled: ({ context }) => context.settled + 1, settledTotal: ({ context }) => context.settledTotal + 1 }) },
      },
      always: { guard: ({ context }) => context.settled === context.calls, target: "appending" },
    },
    appending: {
      entry: enqueueActions(({ context, enqueue }) => {
        for (const call of context.pending) {
          context.messages.push("result");
          enqueue(stopChild(call));
        }
        enqueue.assign({ pending: [], turnsLeft: context.turnsLeft - 1 });
      }),
      always: "requesting",
    },
    done: { type: "final" },
  },
  output: ({ context }) => ({ settledTotal: context.settledTotal }),
});

/**
 * The structure floor: the actors and steps the brief and issue 12 *require* of
 * loopchart, and nothing else. Per turn, the loop invokes a model-request actor
 * (a callback that answers on a microtask) and then a batch machine; the batch
 * spawns one call machine per call (at most {@link SLICE_SIZE} children, slices of
 * the same machine beyond that); each call invokes its execute actor (a promise),
 * settles into its batch once, and the batch finishes with the results in
 * source order; the loop appends them. Context is plain data changed only by
 * `assign` (immutable, as loopchart's); no events emitted, no validation, no
 * hooks, no messages built. Its cost beside loopchart's says how much of
 * loopchart's run XState spends on the structure itself.
 */
type StructureCallEvent = { type: "call.none" };
type StructureBatchEvent = { type: "call.settled"; index: number } | { type: `xstate.done.actor.${string}`; output: { offset: number; results: number[] } };
interface StructureBatchInput {
  offset: number;
  count: number;
}
type StructureBatchContext = StructureBatchInput & SlotBatch<number>;

const structureCall = setup({
  types: { input: {} as { index: number }, context: {} as { index: number; result?: number }, events: {} as StructureCallEvent },
  actors: { execute: fromPromise<number, { index: number }>(async ({ input }) => input.index) },
}).createMachine({
  context: ({ input }) => ({ index: input.index }),
  initial: "executing",
  states: {
    executing: {
      invoke: {
        src: "execute",
        input: ({ context }) => ({ index: context.index }),
        onDone: { target: "done", actions: assign({ result: ({ event }) => event.output }) },
      },
    },
    done: { entry: sendParent(({ context }): StructureBatchEvent => ({ type: "call.settled", index: context.index })) },
  },
});

const structureBatchDefinition = setup({
  types: {
    input: {} as StructureBatchInput,
    context: {} as StructureBatchContext,
    events: {} as StructureBatchEvent,
    output: {} as { offset: number; results: number[] },
  },
  actors: { call: structureCall, slice: fromCallback<StructureBatchEvent, StructureBatchInput>(() => undefined) },
}).createMachine({
  context: ({ input }) => ({ ...input, ...slotLayout<number>(input.count) }),
  initial: "running",
  states: {
    running: {
      entry: enqueueActions(({ context, enqueue }) => {
        for (let member = 0; member < context.members; member += 1) {
          if (context.sliceSize === 0) enqueue.spawnChild("call", { id: `c${member}`, input: { index: context.offset + member } });
          else {
            const offset = context.offset + member * context.sliceSize;
            const count = Math.min(context.sliceSize, context.offset + context.count - offset);
            enqueue.spawnChild("slice", { id: `s${member}`, input: { offset, count } });
          }
        }
      }),
      on: {
        "call.settled": { actions: assign(({ context, event }) => settleCall(context, event.index, event.index)) },
        "xstate.done.actor.*": { actions: assign(({ context, event }) => settleSlice(context, event.output)) },
      },
      always: { guard: ({ context }) => context.settled === context.members, target: "done" },
    },
    done: { type: "final" },
  },
  output: ({ context }) => slotOutput(context),
});
const structureBatch = structureBatchDefinition.provide({});
(structureBatch.implementations.actors as Record<string, unknown>).slice = structureBatch;

/** Stand-ins for the messages the structure floor appends (it builds none). */
const ASSISTANT = { role: "assistant" } as unknown as AgentMessage;
const RESULT = { role: "toolResult" } as unknown as AgentMessage;

interface StructureLoopContext {
  turnsLeft: number;
  calls: number;
  /** The transcript, shared structure as loopchart's (appending copies at most a chunk). */
  transcript: Transcript;
  settledTotal: number;
}

export const structureLoop = setup({
  types: { input: {} as { turns: number; calls: number }, context: {} as StructureLoopContext, events: {} as { type: "model.done"; calls: number } },
  actors: {
    request: fromCallback<{ type: "model.done"; calls: number }, { calls: number }>(({ sendBack, input }) => {
      void Promise.resolve().then(() => sendBack({ type: "model.done", calls: input.calls }));
    }),
    batch: structureBatch,
  },
}).createMachine({
  context: ({ input }) => ({ turnsLeft: input.turns, calls: input.calls, transcript: transcriptOf([]), settledTotal: 0 }),
  initial: "requesting",
  states: {
    requesting: {
      invoke: { src: "request", input: ({ context }) => ({ calls: context.turnsLeft > 0 ? context.calls : 0 }) },
      on: {
        "model.done": [
          { guard: ({ event }) => event.calls === 0, target: "done" },
          { target: "toolBatch", actions: assign({ transcript: ({ context }) => appendMessages(context.transcript, [ASSISTANT]) }) },
        ],
      },
    },
    toolBatch: {
      invoke: {
        src: "batch",
        input: ({ context }) => ({ offset: 0, count: context.calls }),
        onDone: {
          target: "requesting",
          actions: assign(({ context, event }) => ({
            transcript: appendMessages(context.transcript, event.output.results.map(() => RESULT)),
            settledTotal: context.settledTotal + event.output.results.length,
            turnsLeft: context.turnsLeft - 1,
          })),
        },
      },
    },
    done: { type: "final" },
  },
  output: ({ context }) => ({ settledTotal: context.settledTotal }),
});

/** Actors created for the per-actor figure, after as many for warm-up. */
const ACTOR_SAMPLES = 20_000;

/** Mean µs to create, start and stop an actor of a one-state machine: what any actor costs in XState. */
export function actorMicros(): number {
  const oneState = createMachine({ initial: "idle", states: { idle: {} } });
  const once = () => createActor(oneState).start().stop();
  for (let i = 0; i < ACTOR_SAMPLES; i += 1) once();
  const started = performance.now();
  for (let i = 0; i < ACTOR_SAMPLES; i += 1) once();
  return ((performance.now() - started) * 1_000) / ACTOR_SAMPLES;
}

/** Runs a floor chart (default: the least chart) through `workload`; resolves with the wall time in ms. */
export function runFloor(workload: Workload, chart: typeof floorLoop | typeof structureLoop = floorLoop): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const actor = createActor(chart as typeof floorLoop, { input: { turns: workload.toolTurns, calls: workload.callsPerTurn } });
    actor.subscribe({
      complete: () => {
        const wallMs = performance.now() - started;
        const expected = workload.toolTurns * workload.callsPerTurn;
        const settledTotal = (actor.getSnapshot().output as { settledTotal?: number } | undefined)?.settledTotal ?? 0;
        if (settledTotal !== expected) reject(new Error(`floor chart settled ${settledTotal} calls on ${workload.name}, expected ${expected}`));
        else resolve(wallMs);
      },
      error: reject,
    });
    actor.start();
  });
}
