/**
 * The XState floor: what the least chart the brief allows costs on the bench's
 * workloads, doing no work besides being a chart. Its loop has only the required
 * states (requesting → dispatching → executing → appending → requesting | done),
 * one long-lived model actor answering each request on a microtask, and one
 * spawned actor per tool call (executing → done, reporting to the loop); batches
 * over 32 calls are spawned in chunk actors of 32, as loopchart does, because
 * XState copies a parent's children on every stop (n² for one parent of n). No
 * events to a sink, no messages built, no validation, no hooks.
 *
 * It runs beside pi-agent-core on the same workload shapes, so the printed ratio
 * floor/pi says how much of pi's whole run XState's interpreter alone takes
 * before loopchart does any of the loop's real work.
 *
 * Usage (from the root): node --expose-gc --import tsx bench/xstate-floor.ts
 * Honours BENCH_ROUNDS, BENCH_SCALE and BENCH_ONLY like `run.ts`.
 */
import { assign, createActor, createMachine, enqueueActions, fromCallback, sendTo, setup, stopChild, type AnyActorRef } from "xstate";
import { piEngine } from "./engines.js";
import { collectGarbage, measureRun } from "./measure.js";
import { readBenchOptions, WARMUP_FRACTION } from "./options.js";
import { median } from "./report.js";
import { describeWorkload, scaleWorkload, WORKLOADS, type Workload } from "./workloads.js";

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
const CHUNK = 32;

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
const floorLoop = setup({
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

/** Actors created for the per-actor figure, after as many for warm-up. */
const ACTOR_SAMPLES = 20_000;

/** Mean µs to create, start and stop an actor of a one-state machine: what any actor costs in XState. */
function actorMicros(): number {
  const oneState = createMachine({ initial: "idle", states: { idle: {} } });
  const once = () => createActor(oneState).start().stop();
  for (let i = 0; i < ACTOR_SAMPLES; i += 1) once();
  const started = performance.now();
  for (let i = 0; i < ACTOR_SAMPLES; i += 1) once();
  return ((performance.now() - started) * 1_000) / ACTOR_SAMPLES;
}

/** Runs the floor chart through `workload`; resolves with the wall time in ms. */
function runFloor(workload: Workload): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const actor = createActor(floorLoop, { input: { turns: workload.toolTurns, calls: workload.callsPerTurn } });
    actor.subscribe({
      complete: () => {
        const wallMs = performance.now() - started;
        const expected = workload.toolTurns * workload.callsPerTurn;
        const { settledTotal } = actor.getSnapshot().output ?? { settledTotal: 0 };
        if (settledTotal !== expected) reject(new Error(`floor chart settled ${settledTotal} calls on ${workload.name}, expected ${expected}`));
        else resolve(wallMs);
      },
      error: reject,
    });
    actor.start();
  });
}

async function main(): Promise<void> {
  const options = readBenchOptions();
  const workloads = WORKLOADS.filter((workload) => !options.only || options.only.includes(workload.name)).map((workload) =>
    scaleWorkload(workload, options.scale),
  );
  console.log(`XState floor vs pi-agent-core: node ${process.version}, rounds ${options.rounds}, scale ${options.scale}`);
  console.log(`one actor (one-state machine, create + start + stop): ${actorMicros().toFixed(1)} µs`);
  for (const workload of workloads) {
    const warm = scaleWorkload(workload, WARMUP_FRACTION);
    await runFloor(warm);
    await measureRun(piEngine, warm);
    const floor: number[] = [];
    const pi: number[] = [];
    for (let round = 0; round < options.rounds; round += 1) {
      collectGarbage();
      floor.push(await runFloor(workload));
      pi.push((await measureRun(piEngine, workload)).wallMs);
    }
    const floorMs = median(floor);
    const piMs = median(pi);
    console.log(
      `${workload.name} (${describeWorkload(workload)}): floor chart ${floorMs.toFixed(1)} ms, pi ${piMs.toFixed(1)} ms, floor/pi ${(floorMs / piMs).toFixed(2)}`,
    );
  }
}

await main();
