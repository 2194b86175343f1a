/**
 * The viewer's model of a run: its records and what the page derives from them once (actors in
 * order of appearance, each actor's state spans, error results, where the transcript's messages
 * are), extended as records arrive, never recomputed per step.
 */
import { callIdOfSystemId } from "../../machines/events.js";

export interface Inspect {
  type: string;
  actorId: string;
  sessionId: string;
  parentId?: string;
  machineId?: string;
  systemId?: string;
  event?: unknown;
  snapshot?: { status: string; value?: unknown; context?: unknown };
}
export type ViewRecord = { t: number; event: { type: string; [key: string]: unknown } } | { t: number; inspect: Inspect };
/**
 * `callId`: a tool call's id (its actor id is only its place in the batch, `call@<index>`):
 * from its system id `toolCall:<id>` when the record has it, else from its first
 * snapshot's `toolCallId` (a live Stately inspector's records carry no system id).
 */
export interface Actor { actorId: string; sessionId: string; machineId?: string; callId?: string }
/** A stretch of time an actor spent in one (lane) state; `at` is the record index it began at. */
export interface Span { state: string; from: number; to: number; at: number }

/** The machine whose actors get a lane each, and the run's own machine (its lane shows the model requests). */
export const CALL_MACHINE = "toolCall";
export const LOOP_MACHINE = "agentLoop";
/** Keys of states a tool call waits for a person in (`awaitingApproval`, or however the call machine names it). */
export const AWAITING = /await|approv/i;
/** Where the loop compacts its context (`machines/requesting.state.ts`). */
export const COMPACTING_PATH = "requesting.compacting";
/** A compaction of the run, from its `compaction_end` event. */
export interface Compaction {
  /** Record index and time of its `compaction_end`. */
  at: number;
  t: number;
  reason: string;
  compacted: boolean;
  replaced: number;
  tokensBefore: number;
  tokensAfter: number;
}

/** The states a tool call's lane names as its phases (others show as the top-level state). */
export const CALL_PHASES = new Set(["queued", "preparing", "prepared", "awaitingApproval", "executing", "finalizing", "done"]);

/** What an actor is shown as: a call by its tool call id, any other actor by its actor id. */
export const nameOf = (actor: Actor | undefined): string => actor?.callId ?? actor?.actorId ?? "";

/** Dotted paths of every active state in a snapshot value ("a", {a: "b"} → a, a.b). */
export function activePaths(value: unknown, prefix = ""): string[] {
  if (typeof value === "string") return [prefix + value];
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([key, child]) => [prefix + key, ...activePaths(child, `${prefix}${key}.`)]);
}
const topState = (value: unknown): string => (typeof value === "string" ? value : typeof value === "object" && value !== null ? Object.keys(value)[0] ?? "?" : "?");

/**
 * The state a lane shows for a snapshot value: the top-level state, or for a tool call the
 * deepest active state that is one of its phases (so `preparing.awaitingApproval` shows as
 * awaiting approval, wherever the call machine nests it).
 */
export function laneState(value: unknown, status: string | undefined, machineId: string | undefined): string {
  if (status === "done") return "done";
  // The loop's lane shows a compaction as a span of its own (it is nested in requesting).
  if (machineId === LOOP_MACHINE && activePaths(value).includes(COMPACTING_PATH)) return "compacting";
  if (machineId !== CALL_MACHINE) return topState(value);
  const keys = activePaths(value).map((path) => path.slice(path.lastIndexOf(".") + 1));
  const phase = [...keys].reverse().find((key) => AWAITING.test(key) || CALL_PHASES.has(key));
  return phase ?? topState(value);
}

/**
 * A checkpoint of a durable session as the trace shows it: a turn's end (`turn_end`) or a
 * call's wait for approval (`approval_requested`); `turn` counts the run's turns (the loop's
 * `turn`), `at` is its record index.
 */
export interface CheckpointMark { at: number; t: number; kind: "turn" | "approval"; turn: number; toolCallId?: string }

export interface RunIndex {
  count: number;
  /** The run's checkpoints, in order. */
  checkpoints: CheckpointMark[];
  /** The loop's `turn` in its first snapshot (a restored run starts at its saved turn). */
  firstLoopTurn?: number;
  /** `turn_start` events so far, and whether the run began here (`agent_start`) rather than restored. */
  turnStarts: number;
  fresh: boolean;
  actors: Map<string, Actor>;
  order: string[];
  spans: Map<string, Span[]>;
  /** Tool call id → when its error result settled. */
  errors: Map<string, number>;
  /** Record indexes of `message_end` events. */
  messages: number[];
  /** Record indexes of each actor's snapshots, in order. */
  snapshots: Map<string, number[]>;
  /** The run's compactions, in order. */
  compactions: Compaction[];
}
export const emptyIndex = (): RunIndex => ({ count: 0, checkpoints: [], turnStarts: 0, fresh: false, actors: new Map(), order: [], spans: new Map(), errors: new Map(), messages: [], snapshots: new Map(), compactions: [] });

/** Extends `index` with the records it has not seen. */
export function indexRecords(index: RunIndex, records: readonly ViewRecord[]): void {
  for (let i = index.count; i < records.length; i += 1) {
    const r = records[i] as ViewRecord;
    if ("event" in r) {
      if (r.event.type === "message_end") index.messages.push(i);
      if (r.event.type === "tool_execution_end" && r.event.isError === true) index.errors.set(String(r.event.toolCallId), r.t);
      if (r.event.type === "agent_start") index.fresh = true;
      if (r.event.type === "turn_start") index.turnStarts += 1;
      // The turn under way: counted by turn_start events, from the saved turn when the run was restored (its turn in progress
      // is not started again). Agent events reach a trace after the inspection records of their step, so the loop's
      // latest snapshot may already be in the next turn.
      const turn = Math.max((index.fresh ? 0 : (index.firstLoopTurn ?? 0)) + index.turnStarts, 1);
      if (r.event.type === "turn_end") index.checkpoints.push({ at: i, t: r.t, kind: "turn", turn });
      if (r.event.type === "approval_requested") index.checkpoints.push({ at: i, t: r.t, kind: "approval", turn, toolCallId: String(r.event.toolCallId) });
      if (r.event.type === "compaction_end") {
        const { reason, compacted, replaced, tokensBefore, tokensAfter } = r.event as { reason?: unknown; compacted?: unknown; replaced?: unknown; tokensBefore?: unknown; tokensAfter?: unknown };
        index.compactions.push({ at: i, t: r.t, reason: String(reason), compacted: compacted === true, replaced: Number(replaced) || 0, tokensBefore: Number(tokensBefore) || 0, tokensAfter: Number(tokensAfter) || 0 });
      }
      continue;
    }
    const ins = r.inspect;
    if (ins.type === "@xstate.actor" && !index.actors.has(ins.sessionId)) {
      const callId = callIdOfSystemId(ins.systemId);
      index.actors.set(ins.sessionId, { actorId: ins.actorId, sessionId: ins.sessionId, ...(ins.machineId ? { machineId: ins.machineId } : {}), ...(callId ? { callId } : {}) });
      index.order.push(ins.sessionId);
    }
    if (ins.type === "@xstate.snapshot") {
      const actor = index.actors.get(ins.sessionId);
      const turn = (ins.snapshot?.context as { turn?: unknown } | undefined)?.turn;
      if (actor?.machineId === LOOP_MACHINE && typeof turn === "number") index.firstLoopTurn ??= turn;
      const toolCallId = (ins.snapshot?.context as { toolCallId?: unknown } | undefined)?.toolCallId;
      if (actor && actor.callId === undefined && typeof toolCallId === "string") actor.callId = toolCallId;
      if (ins.snapshot?.value !== undefined) {
        const list = index.snapshots.get(ins.sessionId) ?? [];
        list.push(i);
        index.snapshots.set(ins.sessionId, list);
      }
      const state = laneState(ins.snapshot?.value, ins.snapshot?.status, actor?.machineId);
      let spans = index.spans.get(ins.sessionId);
      if (!spans) index.spans.set(ins.sessionId, (spans = []));
      const last = spans.at(-1);
      if (last && last.state === state) continue;
      if (last) last.to = r.t;
      spans.push({ state, from: r.t, to: Number.POSITIVE_INFINITY, at: i });
    }
  }
  index.count = records.length;
}
