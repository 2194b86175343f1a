/**
 * One run of a durable session: the loop actor with a {@link SessionRecorder} as
 * its inspector and its tools wrapped so each call's start is stored before the
 * tool runs, started fresh or restored from the session's snapshot.
 */
import type { InspectionEvent, Observer, Snapshot } from "xstate";
import { runIntoSink, type AgentLoopActor } from "../agent-loop-actor.js";
import { liveTranscript } from "./session-compaction.js";
import { LoopInputError } from "../errors/loop-input-error.js";
import { InterruptedByRestartError } from "../dbos/durable-tools.js";
import { replayOf } from "../dbos/replay-policy.js";
import type { AgentContext, AgentEventSink, AgentLoopConfig, AgentMessage, AgentTool, StreamFn } from "../types.js";
import { SessionRecorder, type PersistedLoop } from "./session-recorder.js";
import { DEFAULT_CHECKPOINT_POLICY, type CheckpointPolicy } from "./session-checkpoint.js";
import { describeTakeover } from "./session-lease.js";
import { SESSION_FORMAT, SESSION_FORMAT_VERSION, type SessionAgentSettings, type SessionRecord, type SessionStore, type StoredSession } from "./session-store.js";

/** Options of {@link runDurably}. */
export interface DurableRunOptions {
  store: SessionStore;
  sessionId: string;
  /** New prompts (a prompt run), none (a continue run), or `restore` to continue the stored run. */
  prompts: AgentMessage[] | "restore";
  context: AgentContext;
  config: AgentLoopConfig;
  emit: AgentEventSink;
  signal: AbortSignal;
  streamFn: StreamFn;
  /** Settings to store for a resume (system prompt, model, thinking level). */
  agent: SessionAgentSettings;
  /** The caller's data kept on the record (the CLI's options). */
  meta?: Record<string, unknown>;
  /** Called once the loop actor has started (its input was accepted). */
  onStarted?: () => void;
  /** Receives the loop actor before it starts (to send it approval decisions). */
  onActor?: (actor: AgentLoopActor) => void;
  /** Called after each save landed, with the record saved (e.g. to exit once a wait for approval is durable). */
  onSaved?: (record: SessionRecord) => void;
  /** Receives the run's recorder before the loop starts (to `suspend()` it on SIGTERM). */
  onRecorder?: (recorder: SessionRecorder) => void;
  /** Which snapshots the session keeps. Default: what its record says, else {@link DEFAULT_CHECKPOINT_POLICY}. */
  checkpoints?: CheckpointPolicy;
}

/**
 * Runs to the end and resolves with the run's new messages once every save is
 * durable. Takes the session's lease first unless the store already holds it
 * (rejecting with `SessionBusyError`, before anything runs, when another live
 * process holds it) and releases a lease it took once the run ended. Rejects with
 * the store's error when a save failed (the run itself went on), and — before
 * starting — when the session's log holds messages the given transcript does not
 * (another process's session of the same id: resume it instead).
 */
export async function runDurably(options: DurableRunOptions): Promise<AgentMessage[]> {
  const { store, sessionId } = options;
  // One owner per run: take the session's lease unless the caller (the CLI) already holds it.
  const lease = store.holds(sessionId) ? undefined : await store.acquire(sessionId);
  if (lease?.tookOver) process.emitWarning(describeTakeover(sessionId, lease.tookOver), "SessionWarning");
  try {
    return await runOwned(options);
  } finally {
    await lease?.release();
  }
}

async function runOwned(options: DurableRunOptions): Promise<AgentMessage[]> {
  const { store, sessionId, context } = options;
  const stored = await store.load(sessionId);
  const restoring = options.prompts === "restore";
  const logged = stored?.messages.length ?? 0;
  // After a compaction the agent holds the summary and the kept messages, not the whole log.
  const live = stored ? liveTranscript(stored.messages, stored.record.compaction).length : 0;
  if (!restoring && context.messages.length < live) {
    throw new LoopInputError(
      `Session "${sessionId}" in ${store.location} already holds ${live} messages and this agent's transcript has ${context.messages.length}; ` +
        `continue it with Agent.resume(store, "${sessionId}") or use another session id.`,
    );
  }
  const snapshot = restoring ? restorableSnapshot(stored, sessionId, store.location) : undefined;
  const now = new Date().toISOString();
  const base: SessionRecord = stored?.record ?? {
    format: SESSION_FORMAT,
    version: SESSION_FORMAT_VERSION,
    id: sessionId,
    createdAt: now,
    updatedAt: now,
    state: "running",
    turns: 0,
    runs: 0,
    agent: options.agent,
  };
  const run = restoring ? base.runs : base.runs + 1;
  const snapshotTurn = (snapshot as { context?: { turn?: number } } | undefined)?.context?.turn ?? 0;
  const checkpoints = options.checkpoints ?? base.checkpoints ?? DEFAULT_CHECKPOINT_POLICY;
  const recorder = new SessionRecorder({
    store,
    sessionId,
    base: { ...base, agent: options.agent, ...(options.meta ? { meta: options.meta } : {}) },
    logged,
    log: stored?.messages ?? [],
    checkpoints,
    ...(snapshot ? { restoredFrom: snapshot as PersistedLoop } : {}),
    run,
    turnsBefore: restoring ? base.turns - snapshotTurn : base.turns,
    startedBefore: new Set((stored?.startedCalls ?? []).filter((key) => key.startsWith(`${run}:`))),
    ...(options.onSaved ? { onSaved: options.onSaved } : {}),
  });
  options.onRecorder?.(recorder);
  let started = false;
  const userInspect = options.config.inspect;
  const inspect = (event: InspectionEvent) => {
    recorder.inspect(event);
    if (!started) {
      started = true;
      options.onStarted?.();
    }
    forwardInspection(userInspect, event);
  };
  const messages = await runIntoSink(
    {
      prompts: restoring ? [] : (options.prompts as AgentMessage[]),
      context: { ...context, tools: durableTools(context.tools ?? [], recorder) },
      config: options.config,
      signal: options.signal,
      streamFn: options.streamFn,
      inspect,
      ...(snapshot ? { snapshot } : {}),
    },
    options.emit,
    options.onActor,
  );
  await recorder.finish();
  return messages;
}

function forwardInspection(target: AgentLoopConfig["inspect"], event: InspectionEvent): void {
  if (typeof target === "function") target(event);
  else (target as Observer<InspectionEvent> | undefined)?.next?.(event);
}

function restorableSnapshot(stored: StoredSession | undefined, sessionId: string, location: string): Snapshot<unknown> {
  const snapshot = stored?.record.snapshot as { status?: string } | undefined;
  if (!stored || !snapshot || snapshot.status !== "active") {
    throw new LoopInputError(`Session "${sessionId}" in ${location} has no unfinished run to restore (state: ${stored?.record.state ?? "none"}).`);
  }
  return snapshot as Snapshot<unknown>;
}

/**
 * The tools of a durable run: each call first stores that it starts (after the
 * loop's current snapshot), then runs. A call an earlier process had started and
 * that did not settle runs again only when its tool says `replay: "safe"`; a
 * `"never"` one settles with the interrupted-by-restart error result instead.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tools of any schema, as AgentContext.tools
function durableTools(tools: AgentTool<any, any>[], recorder: SessionRecorder): AgentTool<any, any>[] {
  return tools.map((tool) => {
    const replay = replayOf(tool);
    const execute: typeof tool.execute = async (toolCallId, params, signal, onUpdate) => {
      const key = recorder.keyFor(toolCallId);
      if (recorder.startedBefore(key) && replay === "never") throw new InterruptedByRestartError();
      await recorder.callStarting(key);
      return tool.execute(toolCallId, params, signal, onUpdate);
    };
    return { ...tool, execute };
  });
}
