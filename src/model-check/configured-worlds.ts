/**
 * The abstract worlds a loop machine is explored in: the machine with inert stand-ins for
 * its actors, the batch and call machines it provides (or the ones given), and one world
 * per configuration (machine input and world limits). The model checker explores every
 * state of each; `canReach` searches them for a target.
 */
import { fromCallback, type AnyStateMachine, type AnyTransitionDefinition } from "xstate";
import { toolBatchMachine } from "../../machines/tool-batch.machine.js";
import { toolCallMachine } from "../../machines/tool-call.machine.js";
import { baseLoopInput, createLoopWorld, worldPrepareArguments, type HookOutcome, type LoopWorld } from "./loop-world.js";
import { createStepRecorder } from "./record-step.js";
import type { ModelCheckConfiguration } from "./types.js";

/** What the worlds are built from. */
export interface ConfiguredWorldsOptions {
  /** The machine inputs to start from, one world each. */
  configurations: ModelCheckConfiguration[];
  /** Largest batch of tool calls in one response. */
  maxCalls: number;
  hookOutcomes?: Record<string, HookOutcome[]>;
  abstractContext?: (context: unknown) => unknown;
  toolCallMachine?: AnyStateMachine;
  toolBatchMachine?: AnyStateMachine;
}

/** The machines explored, and the worlds, built one at a time. */
export interface ConfiguredWorlds {
  /** The loop machine with stand-in actors. */
  explored: AnyStateMachine;
  callMachine: AnyStateMachine;
  batchMachine: AnyStateMachine;
  /** One world per configuration, in order (each built when reached). */
  each(): Iterable<{ configuration: ModelCheckConfiguration; world: LoopWorld }>;
}

/** The state machine `machine` provides as actor `name`, if it is one. */
function providedMachine(machine: AnyStateMachine, name: string): AnyStateMachine | undefined {
  const logic = (machine.implementations as { actors?: Record<string, unknown> }).actors?.[name];
  return typeof logic === "object" && logic !== null && "root" in logic && "provide" in logic ? (logic as AnyStateMachine) : undefined;
}

/** `machine` with every actor replaced by an inert stand-in, so each child step is an explicit world event. */
function withStandIns(machine: AnyStateMachine): AnyStateMachine {
  const names = Object.keys((machine.implementations as { actors?: Record<string, unknown> }).actors ?? {});
  const idle = fromCallback(() => undefined);
  return machine.provide({ actors: Object.fromEntries(names.map((name) => [name, idle])) } as never);
}

/**
 * Builds the worlds of `machine` (an agent loop machine). `onTransitions` hears every
 * transition each step takes, by machine (for coverage). Throws when a configuration's
 * machine cannot start.
 */
export function createConfiguredWorlds(
  machine: AnyStateMachine,
  options: ConfiguredWorldsOptions,
  onTransitions: (taken: AnyTransitionDefinition[], of: "loop" | "call" | "batch") => void = () => undefined,
): ConfiguredWorlds {
  const explored = withStandIns(machine);
  // The batch and call machines the loop provides (a seeded fault may live there), unless given.
  const batch = options.toolBatchMachine ?? providedMachine(machine, "toolBatch") ?? toolBatchMachine;
  const callMachine = withStandIns(options.toolCallMachine ?? providedMachine(batch, "toolCall") ?? toolCallMachine).provide({
    actions: { prepareArguments: worldPrepareArguments },
  } as never);
  const batchMachine = withStandIns(batch);
  const recorders = { loop: createStepRecorder(), call: createStepRecorder({ withParent: true }) };
  return {
    explored,
    callMachine,
    batchMachine,
    *each() {
      for (const configuration of options.configurations) {
        const world = createLoopWorld(
          { loop: explored, call: callMachine, batch: batchMachine, recorders, onTransitions },
          { ...baseLoopInput(), ...configuration.input },
          {
            maxCalls: options.maxCalls,
            ...(configuration.batchFanOut !== undefined ? { batchFanOut: configuration.batchFanOut } : {}),
            ...(options.hookOutcomes ? { hookOutcomes: options.hookOutcomes } : {}),
            ...(options.abstractContext ? { abstractContext: options.abstractContext } : {}),
            ...(configuration.approvals ? { approvals: true } : {}),
            ...(configuration.input.compaction !== undefined ? { compaction: true } : {}),
          },
        );
        yield { configuration, world };
      }
    },
  };
}
