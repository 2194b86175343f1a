/**
 * The tool batch of one turn, as its own machine: runs the calls of one
 * assistant response and finishes with their results in source order. The loop
 * invokes it from one state. Its top level is what the batch is doing:
 *
 *   dispatching ─┬─ isSequential ───▶ sequential ─────────────────────────────────────┐
 *                ├─ isCapped ───────▶ capped ─────────────────────────────────────────┤
 *                ├─ needsHandshake ─▶ parallel (preparing one at a time, then released) ├─▶ done
 *                └─ (spawn every member) ─▶ parallel (running) ─────────────────────────┘
 *
 * - **sequential** (`batch-sequential.state.ts`): one call at a time, in source
 *   order; each result message is emitted as its call settles, as pi does.
 * - **parallel** (`batch-parallel.state.ts`): every member runs at once; with a
 *   handshake (`beforeToolCall`, or after an abort) they prepare one at a time
 *   and are released together. The result messages are emitted when the last
 *   member settled, in source order.
 * - **capped** (`batch-capped.state.ts`; `caps`: a tool's `concurrency`,
 *   `maxParallelCalls`, set by the loop only when one binds): the calls prepare
 *   one at a time and wait queued; the batch of the response releases, in source
 *   order, what fits (`scanReleasable`), and again as each call settles;
 *   after an abort the queued calls are cancelled and never start. Its slices
 *   only relay. An uncapped batch never enters `capped` and has no caps, queue or
 *   released list in its context.
 * - **done** (final): the batch of a response emits its parallel results'
 *   messages (`message_start`/`message_end`); the output has every result.
 *
 * Each region declares once what all its steps share (a settle recorded, its
 * done condition); the root declares what the whole batch shares wherever it
 * is: the run's `run.abort` (calls awaiting approval settle aborted; a capped
 * batch cancels its queue), `run.abandon` (a warning naming what it stops
 * waiting on, then every unsettled call cancelled), a parent's `call.cancel`,
 * and a finished slice's results.
 *
 * **Bounded fan-out.** XState copies a parent's `children` on every spawn and
 * stop, so one machine parenting n calls costs O(n²) to spawn and tear down
 * (xstate 5.33: 20,000 children take ~80 s to stop). A parallel batch of more
 * than {@link SLICE_SIZE} calls therefore does not parent its calls: it spawns
 * at most `SLICE_SIZE` *slices* — this same machine (`toolBatch`) over a run of
 * the calls — and each slice does the same until a slice has at most
 * `SLICE_SIZE` calls. No machine ever has more than `SLICE_SIZE` children, so a
 * batch costs O(n · SLICE_SIZE). A slice behaves towards its parent like a call:
 * it reports `tool.prepared` (handshake batches) and waits for `call.execute`,
 * takes `call.cancel`, and settles by finishing with its results as output.
 *
 * Each call reports to its batch once (`tool.settled`; `tool.prepared` only with
 * a handshake). The loop sees one event per batch: this machine's done event.
 * The batch's data and pure reads are in `tool-batch-layout.ts`, its named
 * guards and actions in `tool-batch-setup.ts`. Plain data, changed only through `assign`.
 */
import type { AnyStateMachine } from "xstate";
import { cappedState } from "./batch-capped.state.js";
import { parallelState } from "./batch-parallel.state.js";
import { sequentialState } from "./batch-sequential.state.js";
import { lastUncappedOf, resultsOf, SLICE_SIZE, sliceSizeFor, uniqueCallIds } from "./tool-batch-layout.js";
import { toolBatchSetup } from "./tool-batch-setup.js";

export {
  SLICE_SIZE,
  batchModeOf,
  callActorId,
  runsSequentially,
  sliceId,
  sliceSizeFor,
  uniqueCallIds,
  type BatchCallSettings,
  type BatchLayout,
  type BatchMode,
  type BatchQueue,
  type ToolBatchContext,
  type ToolBatchEvent,
  type ToolBatchHooks,
  type ToolBatchInput,
  type ToolBatchOutput,
} from "./tool-batch-layout.js";

const toolBatchDefinition = toolBatchSetup.createMachine({
  id: "toolBatch",
  context: ({ input }) => {
    const offset = input.offset ?? 0;
    const fanOut = Math.max(2, Math.floor(input.fanOut ?? SLICE_SIZE));
    const sliceSize = input.mode === "sequential" ? 0 : sliceSizeFor(input.calls.length, fanOut);
    const members = sliceSize === 0 ? input.calls.length : Math.ceil(input.calls.length / sliceSize);
    const aborted = input.aborted === true;
    // Caps apply to a parallel batch that runs its calls (not a refused one).
    const caps = input.mode === "parallel" && input.refusal === undefined ? input.caps : undefined;
    return {
      calls: input.calls,
      callIds: input.callIds ?? uniqueCallIds(input.calls),
      layout: {
        offset,
        mode: input.mode,
        slice: input.slice === true,
        fanOut,
        handshake: input.refusal === undefined && (input.mode === "sequential" || input.hooks.beforeToolCall || aborted || caps !== undefined),
        sliceSize,
        members,
        abortGraceMs: input.abortGraceMs ?? 0,
        ...(caps ? { caps, ...(input.slice === true ? {} : { lastUncapped: lastUncappedOf(input.calls, caps, offset) }) } : {}),
      },
      callSettings: {
        hooks: input.hooks,
        ...(input.hookScope ? { hookScope: input.hookScope } : {}),
        ...(input.refusal !== undefined ? { refusal: input.refusal } : {}),
        approvedTools: input.approvedTools ?? [],
        ...(input.policies ? { policies: input.policies } : {}),
        registersCalls: input.registersCalls === true,
      },
      aborted,
      started: 0,
      waiting: [],
      slots: input.mode === "sequential" ? [] : Array.from({ length: members }, () => null),
      ordered: { full: [], tail: [], length: 0 },
      settled: 0,
      allTerminate: true,
      rejected: [],
      ...(caps ? { queue: { queued: [], head: 0, executing: {} } } : {}),
    };
  },
  on: {
    // The abort: calls awaiting approval settle aborted, the others honour the run's signal;
    // a capped batch also cancels its queued calls (they never start).
    "run.abort": { actions: ["markAborted", "abortUnsettled", "releaseQueued"] },
    "run.abandon": { actions: ["warnAbandoned", "markAborted", "cancelUnsettled"] },
    "call.cancel": { actions: ["markAborted", "cancelUnsettled"] },
    // A slice (of a parallel or capped batch) finished: its results are kept wherever the batch is.
    "xstate.done.actor.*": { actions: { type: "recordSlice", params: ({ event }) => event.output } },
  },
  initial: "dispatching",
  states: {
    dispatching: {
      always: [
        { guard: "isSequential", target: "sequential" },
        { guard: "isCapped", target: "capped" },
        { guard: "needsHandshake", target: "parallel.preparing" },
        { target: "parallel.running", actions: "spawnAll" },
      ],
    },
    sequential: sequentialState,
    parallel: parallelState,
    capped: cappedState,
    done: {
      type: "final",
      entry: "emitResults",
    },
  },
  output: ({ context }) => ({
    offset: context.layout.offset,
    results: resultsOf(context),
    terminates: context.callSettings.refusal === undefined && context.calls.length > 0 && context.allTerminate,
    rejected: context.rejected.slice().sort((a, b) => a - b),
  }),
});

/**
 * `machine` (the tool-batch machine, possibly with other actors provided) with
 * its slices pointed at itself, so a large batch is sliced by the same machine.
 * `as` may wrap the linked machine (the run's event listening); the slices run
 * the wrapped logic too, and it is what is returned. Use it after every `provide`.
 */
export function linkSlices<T extends AnyStateMachine>(machine: T, as: (linked: T) => T = (linked) => linked): T {
  const linked = machine.provide({}) as T;
  const logic = as(linked);
  (linked.implementations.actors as Record<string, unknown>).toolBatch = logic;
  return logic;
}

/** The tool-batch machine (inert call actors; `src/` provides the real ones, then {@link linkSlices}). */
export const toolBatchMachine = linkSlices(toolBatchDefinition);
