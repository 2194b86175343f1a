/**
 * Types of the model checker's public report and options.
 */
import type { AgentLoopInput } from "../../machines/agent-loop.machine.js";

/**
 * The invariants the checker verifies on every explored path:
 *
 * - `I1` every tool call gets exactly one result, appended in source order;
 * - `I2` no tool executes after a length-truncated response or after an abort;
 * - `I3` every path reaches `done` within the bound (no deadlock, no crash, no dead end);
 * - `I4` the public event protocol is well formed;
 * - `I5` a batch terminates the run only when every one of its results terminates;
 * - `I6` the exit reason matches the path;
 * - `I7` a run that ends at `maxTurns` (or its budget) with `wrapUp` made exactly one request without tools, its last;
 * - `I8` no more calls of a tool execute at once than its `concurrency` (nor of a batch than `maxParallelCalls`);
 * - `I9` every request sent to the model has, for every `toolCall` in its context, exactly one
 *   `toolResult` after it and before the next assistant message, and no result without its call
 *   (across compaction, abort, steering and follow-up).
 */
export type InvariantId = "I1" | "I2" | "I3" | "I4" | "I5" | "I6" | "I7" | "I8" | "I9";

/** Every invariant, in order. */
export const INVARIANTS: readonly InvariantId[] = ["I1", "I2", "I3", "I4", "I5", "I6", "I7", "I8", "I9"];

/** One broken invariant with the shortest path of world events that breaks it. */
export interface ModelCheckViolation {
  invariant: InvariantId;
  /** The configuration (machine input) the path starts from. */
  configuration: string;
  /** Readable world events from the initial state, e.g. `model.done(2 calls)`, `call 1: tool.prepared`. */
  path: string[];
  message: string;
}

/** A machine input the exploration starts from. */
export interface ModelCheckConfiguration {
  /** Shown in the report and in counterexamples. */
  name: string;
  /** Merged over the checker's base input (a one-prompt run with a stub model). */
  input: Partial<AgentLoopInput>;
  /** Most children per tool-batch machine (default: the shipped `SLICE_SIZE`); lower it to explore slices of small batches. */
  batchFanOut?: number;
  /**
   * The world may ask for approval: a call's preparation may end asking, and the
   * user then approves (once or `always`) or rejects each waiting call through the
   * loop (`tool.approve` / `tool.reject`). Off by default, to keep the other configurations small.
   */
  approvals?: boolean;
}

/** Per-configuration figures. */
export interface ConfigurationReport {
  name: string;
  states: number;
  /** Explored edges (state, world event) → state. */
  edges: number;
  /** Complete paths from the start to `done` (self-loops such as streaming updates not repeated). */
  paths: number;
  /** States left unexplored because they start a turn past the bound. */
  frontier: number;
}

/** Transition coverage of one machine definition. */
export interface CoverageReport {
  machine: string;
  transitions: number;
  covered: number;
  /** Readable keys of the transitions no explored path took. */
  uncovered: string[];
}

/** What {@link checkAgentLoop} found. */
export interface ModelCheckReport {
  /** Abstract states explored, over all configurations. */
  states: number;
  /** Transitions in the loop machine's definition (events, eventless and invoke done/error, one per guarded branch). */
  transitions: number;
  /** Of those, the ones some explored path took. */
  covered: number;
  /** Complete paths from the start to `done`, over all configurations. */
  paths: number;
  violations: ModelCheckViolation[];
  durationMs: number;
  /** The turn bound of the exploration. */
  turns: number;
  /** The largest batch of tool calls a response holds. */
  maxCalls: number;
  invariants: readonly InvariantId[];
  configurations: ConfigurationReport[];
  /** Coverage of the loop machine. */
  coverage: CoverageReport;
  /** Coverage of the tool-call machine, whose actors the exploration runs inside the loop's world. */
  toolCallCoverage: CoverageReport;
  /** Coverage of the tool-batch machine (the owner of a batch's tool-call actors and slices). */
  toolBatchCoverage: CoverageReport;
}
