/**
 * The model checker's world, as data: its states (the loop's snapshot with its
 * batches' and calls' snapshots, the monitor), the events the world can choose,
 * and its options. See `loop-world.ts`.
 */
import type { AnyMachineSnapshot, AnyStateMachine, AnyTransitionDefinition, EventObject } from "xstate";
import type { ProtocolMonitor, StepViolation, WorldFact } from "./protocol-monitor.js";
import type { StepRecorder } from "./record-step.js";
import type { AgentEvent } from "../types.js";

/** The parent key of the direct path's calls (`dispatching.alone`): the loop parents them, not a batch. */
export const LOOP_PARENT = "(loop)";

/** One tool-call actor of the current batch (or a call of the direct path): the real tool-call machine's snapshot, and the key of the batch that parents it ({@link LOOP_PARENT}: the loop). */
export interface WorldCall {
  /** Its actor id in its batch (`call@<source index>`). */
  id: string;
  /** The id the run knows it by (its tool call id, made unique in the batch): its system id is `toolCall:<callId>`. */
  callId: string;
  name: string;
  index: number;
  parent: string;
  snapshot: AnyMachineSnapshot;
}

/**
 * The tool batch the loop invokes, or a slice of it: its key (`toolBatch`, then
 * `toolBatch/slice-0`, … for slices), its actor id in its parent, the parent's
 * key (null: the loop), and the real batch machine's snapshot.
 */
export interface WorldBatch {
  key: string;
  id: string;
  parent: string | null;
  snapshot: AnyMachineSnapshot;
}

/** A state of the product of the loop, its tool batch (and slices), the batch's tool-call actors and the world. */
export interface LoopWorldState {
  status: "active" | "done" | "error";
  output: undefined;
  error: undefined;
  loop: AnyMachineSnapshot;
  batches: WorldBatch[];
  calls: WorldCall[];
  modelStarted: boolean;
  /** The abort's grace period ran out: the loop's delayed `run.abandon` fired (it fires once). */
  abandoned: boolean;
  monitor: ProtocolMonitor;
  /** Violations found on the step that produced this state. */
  violations: StepViolation[];
}

/** One thing the world does; `type` is its readable label. */
export interface WorldEvent extends EventObject {
  /** The event delivered, to the loop or (with `call`) to a tool-call actor. */
  send?: SentEvent;
  /** Actor id of the tool-call actor that receives `send`. */
  call?: string;
  /** An event the world itself emits to the run's sink (a streamed response's `message_start`). */
  emits?: AgentEvent;
  modelStarted?: boolean;
  fact?: WorldFact;
  /** The grace period ends: `send` is the loop's delayed `run.abandon`. */
  abandons?: true;
  /** Nothing pending ever settles: the world aborts (if it has not), lets the grace period end (if it has not), and the run must then be done. */
  hangs?: true;
}

/** An event for the loop, with its payload. */
export type SentEvent = EventObject & Record<string, unknown>;

/** A sample output of a hook actor. */
export interface HookOutcome {
  label: string;
  output: unknown;
  fact?: WorldFact;
}

/** Limits and samples of the world. */
export interface LoopWorldOptions {
  /** Largest batch of tool calls in one response. */
  maxCalls: number;
  /** Extra hook outcomes by actor source name (merged over the defaults). */
  hookOutcomes?: Record<string, HookOutcome[]>;
  /** Abstracts the loop's context for state identity; must drop growing data. */
  abstractContext?: (context: unknown) => unknown;
  /** Most children per batch machine (the batch's `fanOut`); lowered to explore slices at a small bound. */
  batchFanOut?: number;
  /** Preparation may ask for approval, and the user decides (see `ModelCheckConfiguration.approvals`). */
  approvals?: boolean;
  /** The run compacts (its input has `compaction`): the model may overflow, and the summarizer answers. */
  compaction?: boolean;
}

/** The machines of a world and how to record their steps. */
export interface LoopWorldMachines {
  /** The loop machine (stand-in actors provided). */
  loop: AnyStateMachine;
  /** The tool-call machine (stand-in actors provided). */
  call: AnyStateMachine;
  /** The tool-batch machine (stand-in children: the world plays its calls and slices). */
  batch: AnyStateMachine;
  recorders: { loop: StepRecorder; call: StepRecorder };
  /** Receives the transitions every step took, by machine. */
  onTransitions: (taken: AnyTransitionDefinition[], of: "loop" | "call" | "batch") => void;
}

/** The world: initial state, events, and the step of the product. */
export interface LoopWorld {
  initial: LoopWorldState;
  events(state: LoopWorldState): WorldEvent[];
  next(state: LoopWorldState, event: WorldEvent): LoopWorldState;
  serialize(state: LoopWorldState): string;
}
