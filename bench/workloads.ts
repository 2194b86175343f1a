/**
 * The scripted workloads both engines run. Each workload is a number of tool
 * turns (assistant message with text deltas and tool calls, then one result per
 * call) followed by one final text-only turn that ends the run.
 */

/** The shape of one workload at scale 1. */
export interface Workload {
  /** Short name used in the table, e.g. `chatty`. */
  name: string;
  /** Turns whose assistant message calls tools. One more, text-only, turn ends the run. */
  toolTurns: number;
  /** Tool calls per tool turn; they run in parallel (the engines' default). */
  callsPerTurn: number;
  /** `text_delta` events per assistant message. */
  textDeltas: number;
  /** Which dimension `BENCH_SCALE` shrinks: the number of turns or the calls per turn. */
  scales: "turns" | "calls";
}

/** Turns of the long workload; the 2× workload doubles it to show how cost grows with the context. */
export const LONG_TURNS = 3_000;

/** The workloads of issue 5, at scale 1. */
export const WORKLOADS: readonly Workload[] = [
  { name: "chatty", toolTurns: 1_000, callsPerTurn: 1, textDeltas: 20, scales: "turns" },
  { name: "wide", toolTurns: 40, callsPerTurn: 64, textDeltas: 4, scales: "turns" },
  // 2 calls per turn: the assistant message plus two results per turn grow the context to ~9,000 messages.
  { name: "long", toolTurns: LONG_TURNS, callsPerTurn: 2, textDeltas: 4, scales: "turns" },
  { name: "huge batch", toolTurns: 1, callsPerTurn: 2_000, textDeltas: 4, scales: "calls" },
  { name: "long 2x", toolTurns: 2 * LONG_TURNS, callsPerTurn: 2, textDeltas: 4, scales: "turns" },
];

/**
 * The workloads of the side-by-side peers benchmark (`../shared/peers-bench`):
 * short runs, each after a forced full GC. Its `long-half` is left out: `run.ts`
 * reports growth.
 */
export const PEER_WORKLOADS: readonly Workload[] = [
  { name: "chatty", toolTurns: 200, callsPerTurn: 1, textDeltas: 20, scales: "turns" },
  { name: "wide", toolTurns: 20, callsPerTurn: 16, textDeltas: 4, scales: "turns" },
  { name: "long", toolTurns: 1_000, callsPerTurn: 2, textDeltas: 4, scales: "turns" },
];

/** Names of the pair whose time ratio is reported as the growth factor. */
export const GROWTH_PAIR = { base: "long", doubled: "long 2x" } as const;

/**
 * Shrinks a workload for quick runs. Never goes below one turn or one call, so
 * every workload still exercises the whole loop.
 */
export function scaleWorkload(workload: Workload, scale: number): Workload {
  if (scale === 1) return workload;
  if (workload.scales === "turns") {
    return { ...workload, toolTurns: Math.max(1, Math.round(workload.toolTurns * scale)) };
  }
  return { ...workload, callsPerTurn: Math.max(1, Math.round(workload.callsPerTurn * scale)) };
}

/** Messages a run of `workload` returns: the prompt, each turn's assistant message and results, the final answer. */
export function expectedMessageCount(workload: Workload): number {
  return 1 + workload.toolTurns * (1 + workload.callsPerTurn) + 1;
}

/** A one-line description such as `1000 turns × 1 call × 20 deltas`. */
export function describeWorkload(workload: Workload): string {
  const calls = workload.callsPerTurn === 1 ? "call" : "calls";
  return `${workload.toolTurns} turns × ${workload.callsPerTurn} ${calls} × ${workload.textDeltas} deltas`;
}
