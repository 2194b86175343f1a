/**
 * What `Agent.resume` needs from a stored session before it builds the agent: the
 * agent's options with the stored system prompt, model, thinking level and
 * transcript (fields the caller gave win), the tools approved for good, and
 * whether the last run is unfinished (and so is restored and goes on).
 */
import { SessionNotFoundError } from "../errors/session-not-found-error.js";
import { assertSessionId, type SessionStore } from "../sessions/session-store.js";
import { hasUnfinishedRun, sessionTranscript } from "../sessions/session-transcript.js";
import type { AgentOptions } from "./agent-options.js";

/** How to build the resumed agent. */
export interface ResumePlan {
  options: AgentOptions;
  approvedTools: string[];
  unfinished: boolean;
}

/** The tools a persisted loop snapshot keeps approved with `always` (its context's `approvedTools`). */
export function approvedToolsIn(snapshot: unknown): string[] {
  const approved = (snapshot as { context?: { approvedTools?: unknown } } | undefined)?.context?.approvedTools;
  return Array.isArray(approved) ? approved.filter((name): name is string => typeof name === "string") : [];
}

/** Loads session `sessionId` of `store`; rejects with `SessionNotFoundError` and the store's load errors. */
export async function planResume(store: SessionStore, sessionId: string, options: AgentOptions): Promise<ResumePlan> {
  assertSessionId(sessionId);
  const stored = await store.load(sessionId);
  if (!stored) throw new SessionNotFoundError(sessionId, store.location);
  const { record } = stored;
  const meta = options.sessionMeta ?? record.meta;
  return {
    options: {
      ...options,
      sessionId,
      sessionStore: store,
      ...(meta ? { sessionMeta: meta } : {}),
      initialState: {
        systemPrompt: record.agent.systemPrompt,
        model: record.agent.model,
        thinkingLevel: record.agent.thinkingLevel,
        ...options.initialState,
        messages: options.initialState?.messages ?? sessionTranscript(stored),
      },
    },
    approvedTools: approvedToolsIn(record.snapshot),
    unfinished: hasUnfinishedRun(record),
  };
}
