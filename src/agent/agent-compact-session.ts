/**
 * `agent.compact()` on an agent with a `sessionStore`: the manual compaction is
 * recorded in the session as one inside a run is (see
 * `sessions/session-manual-compaction.ts`), under the session's lease as every
 * writer's work is.
 */
import type { CompactionResult } from "../compaction/compact-transcript.js";
import { describeTakeover } from "../sessions/session-lease.js";
import { assertManuallyCompactable, manualCompactionSave } from "../sessions/session-manual-compaction.js";
import type { SessionStore } from "../sessions/session-store.js";
import { compactManually, type ManualCompaction } from "./agent-compact.js";
import { LoopInputError } from "../errors/loop-input-error.js";

/** A manual compaction of a durable session's agent. */
export interface SessionCompaction extends Omit<ManualCompaction, "record"> {
  store: SessionStore;
  sessionId: string;
}

/**
 * Takes the session's lease (unless the store already holds it: the CLI takes it
 * first), checks the session may be compacted, compacts the agent's transcript and
 * saves the compaction before `compaction_end` announces it; releases a lease it
 * took. Rejects before `compaction_start` with `SessionBusyError` (another live
 * process holds the session) or `LoopInputError` (no run stored yet, an unfinished
 * run, another agent's session); after it, with the summarizer's or the store's
 * error, and then the session and the agent's transcript are unchanged.
 */
export async function compactSession(options: SessionCompaction): Promise<CompactionResult> {
  const { store, sessionId, ...manual } = options;
  const lease = store.holds(sessionId) ? undefined : await store.acquire(sessionId);
  if (lease?.tookOver) process.emitWarning(describeTakeover(sessionId, lease.tookOver), "SessionWarning");
  try {
    const stored = await store.load(sessionId);
    if (!stored) {
      throw new LoopInputError(`Session "${sessionId}" in ${store.location} has no run stored yet, so there is nothing to record a compaction in; prompt first, or compact before giving the agent a store.`);
    }
    assertManuallyCompactable(stored, sessionId, store.location, manual.messages);
    return await compactManually({
      ...manual,
      record: (result) => store.save(sessionId, manualCompactionSave(stored, manual.messages, result)),
    });
  } finally {
    await lease?.release();
  }
}
