/**
 * Writes one run of a durable session to its store as the run goes: the loop's
 * persisted snapshot after every step that changed an actor's state, the
 * transcript's new messages appended to the log, and each call's start before its
 * tool runs. Writes are serialised; snapshots taken while a write is under way are
 * coalesced (the newest wins), so the store never slows a turn down by more than
 * one write per step and a started call waits only for its own record.
 */
import type { AnyActorRef, InspectionEvent } from "xstate";
import { transcriptMessages, type Transcript } from "../../machines/transcript.js";
import { callIdOfSystemId } from "../../machines/events.js";
import { awaitsApproval, awaitsGo } from "../../machines/tool-call.machine.js";
import type { AgentLoopOutput } from "../../machines/agent-loop.machine.js";
import { rawInspectionEvent } from "../inspection/raw-inspection-event.js";
import type { ExitReason } from "../types.js";
import { compactSnapshot } from "./shared-messages.js";
import { storedCheckpoint, type CheckpointPolicy, type SessionCheckpoint } from "./session-checkpoint.js";
import type { AgentMessage } from "../types.js";
import type { CompactionState } from "../../machines/compaction-policy.js";
import { readSummaryMessage } from "../compaction/summary-message.js";
import { TranscriptLogMap, type SessionCompactionEntry } from "./session-compaction.js";
import { callKey, type SessionRecord, type SessionState, type SessionStore } from "./session-store.js";

/** The parts of a persisted loop snapshot the recorder reads. */
export interface PersistedLoop {
  status?: string;
  value?: unknown;
  output?: AgentLoopOutput;
  context?: { messages?: Transcript; turn?: number; exitReason?: ExitReason; errorMessage?: string; limits?: { compaction?: CompactionState } };
  children?: Record<string, { snapshot?: { value?: unknown } }>;
}

/** Where a run starts from in its session. */
export interface RecorderOptions {
  store: SessionStore;
  sessionId: string;
  /** The record as it was before this run (or a new one); the recorder keeps its fields and updates the rest. */
  base: SessionRecord;
  /** Messages the log holds now. */
  logged: number;
  /** The messages the log holds now (so a checkpoint's transcript is stored as a reference into it). Default: none known. */
  log?: readonly AgentMessage[];
  /** Which snapshots to keep besides the latest. Default `"latest"` (none). */
  checkpoints?: CheckpointPolicy;
  /** The snapshot the run is restored from, if it is: the checkpoints it already passed are not taken again. */
  restoredFrom?: PersistedLoop;
  /** This run's number (the record's `runs`). */
  run: number;
  /** Turns of earlier runs of the session. */
  turnsBefore: number;
  /** Keys of this run's calls that an earlier process started. */
  startedBefore: ReadonlySet<string>;
  /** Called after each save landed, with what was saved. */
  onSaved?: (record: SessionRecord) => void;
}

type ChildSnapshots = Record<string, { snapshot?: { value?: unknown; children?: unknown; context?: unknown }; systemId?: unknown }>;

/**
 * The id a persisted call is known by (what `tool.approve` names): from its system
 * id `toolCall:<id>`, else its tool call's id; its actor id (`call@<index>`) is only its place in the batch.
 */
function callIdOf(key: string, child: ChildSnapshots[string]): string {
  const toolCall = (child.snapshot?.context as { toolCall?: { id?: unknown } } | undefined)?.toolCall;
  return callIdOfSystemId(child.systemId) ?? (typeof toolCall?.id === "string" ? toolCall.id : key);
}

/** Ids of the calls a persisted snapshot shows waiting for approval (in the tool batch and its slices too). */
export function awaitingCalls(snapshot: PersistedLoop): string[] {
  const ids: string[] = [];
  const visit = (children: ChildSnapshots) => {
    for (const [id, child] of Object.entries(children)) {
      if (awaitsApproval(child.snapshot?.value)) ids.push(callIdOf(id, child));
      else if (child.snapshot?.children) visit(child.snapshot.children as ChildSnapshots);
    }
  };
  visit(snapshot.children ?? {});
  return ids;
}

/** The session state a persisted snapshot shows. */
export function sessionStateOf(snapshot: PersistedLoop): SessionState {
  if (snapshot.status === "done") {
    const reason = snapshot.output?.exitReason ?? snapshot.context?.exitReason;
    return reason === "error" || reason === "aborted" ? "failed" : "done";
  }
  if (snapshot.status === "error") return "failed";
  return awaitingCalls(snapshot).length > 0 ? "awaiting approval" : "running";
}

/**
 * The calls a persisted snapshot waits on for approval, in the loop's order, when
 * nothing else is going on (no call preparing, executing or finishing; the loop in
 * its tool batch): the run can go no further without a decision. Undefined otherwise.
 */
export function blockedOnApproval(snapshot: PersistedLoop): string[] | undefined {
  if (snapshot.status !== "active") return undefined;
  const value = snapshot.value as unknown;
  // `dispatching` (a snapshot written before the direct path), or either of its children.
  if (value !== "dispatching" && !(typeof value === "object" && value !== null && "dispatching" in value)) return undefined;
  const waiting: string[] = [];
  let busy = false;
  const visit = (children: ChildSnapshots) => {
    for (const [id, child] of Object.entries(children)) {
      const state = child.snapshot?.value;
      const context = (child.snapshot as { context?: { calls?: unknown } } | undefined)?.context;
      if (Array.isArray(context?.calls)) {
        // The tool batch (or a slice of it): its calls (or slices) are its children.
        visit((child.snapshot?.children ?? {}) as ChildSnapshots);
      } else if (awaitsApproval(state)) {
        waiting.push(callIdOf(id, child));
      } else if (state !== "queued" && !awaitsGo(state) && state !== "done") {
        // Preparing, executing, finalizing — or an invoked actor of the loop's at work.
        busy = true;
      }
    }
  };
  visit(snapshot.children ?? {});
  return !busy && waiting.length > 0 ? waiting : undefined;
}

/**
 * How many of the run's turns a persisted snapshot shows ended (their `turn_end`
 * emitted): all it started once it is done or between turns (past `finishingTurn`),
 * else all but the current one.
 */
export function endedTurns(snapshot: PersistedLoop): number {
  const turn = snapshot.context?.turn ?? 0;
  if (snapshot.status === "done") return turn;
  const value = snapshot.value as Record<string, unknown> | string | undefined;
  if (typeof value === "object" && value !== null && "betweenTurns" in value && value.betweenTurns !== "finishingTurn") return turn;
  return Math.max(turn - 1, 0);
}

/** The key of an approval wait: the turn and the ids waiting. */
const waitKey = (turn: number, waiting: readonly string[]): string => `${turn}:${waiting.join(",")}`;

/** The summary text of a summary message. */
function summaryOf(message: unknown): string {
  return readSummaryMessage(message as never)?.summary ?? "";
}

/** Records one run; give its `inspect` to the loop actor and `callStarting` to the tools. */
export class SessionRecorder {
  private readonly options: RecorderOptions;
  private root: AnyActorRef | undefined;
  private scheduled = false;
  private queue: Promise<void> = Promise.resolve();
  private pending: PersistedLoop | undefined;
  private logged: number;
  /**
   * Messages the captured snapshots showed that no save has written yet, in log
   * order. Collected as each snapshot is captured, not as saves are written: a
   * message appended and then compacted away between two saves is in no later
   * snapshot, yet the log must keep it.
   */
  private unsaved: AgentMessage[] = [];
  /** How many messages the log will hold once every collected message is written (the log's, those being written, `unsaved`). */
  private collected: number;
  private failure: { error: unknown } | undefined;
  private suspended = false;
  /** The log's messages as this recorder has written them (kept only while checkpoints are taken). */
  private readonly log: AgentMessage[];
  /** Checkpoints taken and not yet written. */
  private checkpoints: SessionCheckpoint[] = [];
  /** The last session-wide turn checkpointed, and the last approval wait (turn and waiting ids). */
  private checkpointedTurn: number;
  private checkpointedWait: string | undefined;
  /** Where the run's transcript sits in the log (after a compaction, it starts with a summary). */
  private readonly logMap: TranscriptLogMap;
  /** The session's compactions recorded so far, and how many of them are this run's. */
  private compactions: SessionCompactionEntry[];
  private compactedThisRun: number;

  constructor(options: RecorderOptions) {
    this.options = options;
    this.logged = options.logged;
    this.collected = options.logged;
    this.log = options.checkpoints === "turns" ? (options.log ?? []).slice() : [];
    const restored = options.restoredFrom;
    this.checkpointedTurn = options.turnsBefore + (restored ? endedTurns(restored) : 0);
    const waiting = restored ? blockedOnApproval(restored) : undefined;
    this.checkpointedWait = restored && waiting ? waitKey(options.turnsBefore + (restored.context?.turn ?? 0), waiting) : undefined;
    this.logMap = new TranscriptLogMap(options.base.compaction);
    this.compactions = options.base.compactions ?? [];
    this.compactedThisRun = this.compactions.filter((entry) => entry.run === options.run).length;
  }

  /** An XState inspector: finds the loop (the root actor) and schedules a save after each step. */
  readonly inspect = (readable: InspectionEvent): void => {
    // The live actor, not the readable view observers get: its snapshot is read for the turn and persisted.
    const event = rawInspectionEvent(readable);
    if (!this.root && event.actorRef.sessionId === event.rootId) this.root = event.actorRef as AnyActorRef;
    if (event.type !== "@xstate.snapshot" || this.scheduled) return;
    this.scheduled = true;
    // Between steps: XState has finished the step, so no event is in flight between actors.
    queueMicrotask(() => {
      this.scheduled = false;
      this.capture();
    });
  };

  /** The key a call of the current turn is recorded under. */
  keyFor(toolCallId: string): string {
    const turn = (this.root?.getSnapshot() as { context?: { turn?: number } } | undefined)?.context?.turn ?? 0;
    return callKey(this.options.run, turn, toolCallId);
  }

  /** Whether an earlier process started the call of `key` (and so it may have had effects). */
  startedBefore(key: string): boolean {
    return this.options.startedBefore.has(key);
  }

  /** Saves a snapshot of the loop now, then records that the call of `key` starts; resolves once both are durable. Rejects once suspended: the call must not start. */
  callStarting(key: string): Promise<void> {
    if (this.suspended) return Promise.reject(new Error("The run is being suspended; the call was not started."));
    this.capture();
    return this.enqueue(() => this.options.store.recordCallStart(this.options.sessionId, key));
  }

  /** Saves the loop's final snapshot (none once suspended); resolves once every write is done, rejects with the first write failure. */
  async finish(): Promise<void> {
    this.capture();
    await this.queue;
    if (this.failure) throw this.failure.error;
  }

  /**
   * Suspends the session (SIGTERM): saves the loop as it is now and records nothing
   * after, so the run can then be aborted and the session stays as a crash would
   * leave it, resumable. Resolves once the save is durable; rejects with a write failure.
   */
  async suspend(): Promise<void> {
    this.capture();
    this.suspended = true;
    await this.queue;
    if (this.failure) throw this.failure.error;
  }

  private capture(): void {
    const root = this.root;
    if (!root || this.suspended) return;
    const snapshot = root.getPersistedSnapshot() as PersistedLoop;
    if (this.options.checkpoints === "turns") this.noteCheckpoint(snapshot);
    this.noteMessages(snapshot);
    this.noteCompaction(snapshot);
    const queued = this.pending !== undefined;
    this.pending = snapshot;
    if (!queued) {
      void this.enqueue(() => {
        const next = this.pending as PersistedLoop;
        this.pending = undefined;
        return this.write(next);
      }).catch(() => {});
    }
  }

  /**
   * Takes `snapshot` as a checkpoint when it is the first to show a turn ended (it is
   * captured on the microtask after `turn_end`, before any work of the next turn) or a
   * new wait for approval with nothing else running.
   */
  private noteCheckpoint(snapshot: PersistedLoop): void {
    const { turnsBefore, run, base } = this.options;
    const started = turnsBefore + (snapshot.context?.turn ?? 0);
    const common = () => ({ run, sessionTurns: started, at: new Date().toISOString(), state: sessionStateOf(snapshot), agent: base.agent, snapshot });
    const ended = turnsBefore + endedTurns(snapshot);
    if (ended > this.checkpointedTurn) {
      this.checkpointedTurn = ended;
      this.checkpoints.push({ kind: "turn", turn: ended, ...common() });
    }
    const waiting = blockedOnApproval(snapshot);
    if (waiting && waitKey(started, waiting) !== this.checkpointedWait) {
      this.checkpointedWait = waitKey(started, waiting);
      this.checkpoints.push({ kind: "approval", turn: started, awaiting: waiting, ...common() });
    }
  }

  /** Collects the messages `snapshot`'s transcript adds to what the log holds and the earlier captures collected. */
  private noteMessages(snapshot: PersistedLoop): void {
    if (!snapshot.context?.messages) return;
    const transcript = transcriptMessages(snapshot.context.messages);
    const added = this.logMap.unlogged(transcript, snapshot.context.limits?.compaction, this.collected);
    for (const message of added) this.unsaved.push(message);
    this.collected += added.length;
  }

  /**
   * Adds the audit entry of a compaction `snapshot` is the first to show. Noted as
   * each snapshot is captured (every step), not as saves are written: saves are
   * coalesced, and two compactions between two saves each get their entry.
   */
  private noteCompaction(snapshot: PersistedLoop): void {
    const compaction = snapshot.context?.limits?.compaction;
    if ((compaction?.count ?? 0) <= this.compactedThisRun || !compaction?.last || !snapshot.context?.messages) return;
    const transcript = transcriptMessages(snapshot.context.messages);
    const point = this.logMap.point(transcript, compaction);
    if (!point) return;
    this.compactedThisRun = compaction.count ?? 0;
    const summary = transcript[0] ? summaryOf(transcript[0]) : "";
    this.compactions = [...this.compactions, { run: this.options.run, at: new Date().toISOString(), ...compaction.last, keptFrom: point.keptFrom, summary }];
  }

  private enqueue(task: () => Promise<void>): Promise<void> {
    const run = this.queue.then(task);
    this.queue = run.catch((error: unknown) => {
      this.failure ??= { error };
    });
    return run;
  }

  private async write(snapshot: PersistedLoop): Promise<void> {
    const { base, turnsBefore, sessionId, store } = this.options;
    const transcript = snapshot.context?.messages ? transcriptMessages(snapshot.context.messages) : [];
    const compaction = snapshot.context?.limits?.compaction;
    // The log keeps every message (a compaction's replaced ones stay, for audit); only what it lacks is appended.
    // Every message the captures collected up to this snapshot (the newest captured) is written with it.
    const added = this.unsaved;
    this.unsaved = [];
    const point = this.logMap.point(transcript, compaction);
    const state = sessionStateOf(snapshot);
    const exitReason = snapshot.status === "done" ? (snapshot.output?.exitReason ?? snapshot.context?.exitReason) : undefined;
    const errorMessage = snapshot.status === "done" ? (snapshot.output?.errorMessage ?? snapshot.context?.errorMessage) : undefined;
    const { exitReason: _reason, errorMessage: _message, ...kept } = base;
    const record: SessionRecord = {
      ...kept,
      runs: this.options.run,
      updatedAt: new Date().toISOString(),
      state,
      turns: turnsBefore + (snapshot.context?.turn ?? 0),
      ...(exitReason === undefined ? {} : { exitReason }),
      ...(errorMessage === undefined ? {} : { errorMessage }),
      ...(this.options.checkpoints ? { checkpoints: this.options.checkpoints } : {}),
      snapshot: compactSnapshot(snapshot),
      ...(point ? { compaction: point } : {}),
      ...(this.compactions.length > 0 ? { compactions: this.compactions } : {}),
    };
    const taken = this.checkpoints;
    this.checkpoints = [];
    // What the log holds once this save is written: each checkpoint's transcript is a reference into it where it can be.
    const log = taken.length > 0 && added.length > 0 ? this.log.concat(added) : this.log;
    const checkpoints = taken.map((checkpoint) => storedCheckpoint(checkpoint, log));
    try {
      await store.save(sessionId, { record, firstIndex: this.logged, messages: added, ...(checkpoints.length > 0 ? { checkpoints } : {}) });
    } catch (error) {
      this.checkpoints = taken.concat(this.checkpoints);
      this.unsaved = added.concat(this.unsaved);
      throw error;
    }
    this.logged += added.length;
    if (this.options.checkpoints === "turns") for (const message of added) this.log.push(message);
    this.options.onSaved?.(record);
  }
}
