/**
 * Starts one `Agent` run: in memory (`runIntoSink`), or as a durable session's run
 * (`runDurably`: saved as it goes, restored when it was unfinished). Whatever runs
 * delivers every event to `emit` in order and settles when the run ended.
 */
import { runIntoSink, type AgentLoopActor } from "../agent-loop-actor.js";
import { LoopInputError } from "../errors/loop-input-error.js";
import { assertContinuable } from "../loop-input.js";
import { runDurably } from "../sessions/durable-run.js";
import type { SessionStore } from "../sessions/session-store.js";
import type { AgentContext, AgentEventSink, AgentLoopConfig, AgentMessage, Model, StreamFn, ThinkingLevel } from "../types.js";
import type { AgentOptions } from "./agent-options.js";
import type { AgentRunRequest } from "./agent-run-request.js";

export type { AgentRunRequest };

/** What one run needs: the request, the loop's input, and the session it runs in (durable agents only). */
export interface AgentLoopStart {
  request: AgentRunRequest;
  context: AgentContext;
  config: AgentLoopConfig;
  emit: AgentEventSink;
  signal: AbortSignal;
  streamFn: StreamFn;
  session?: {
    store: SessionStore;
    sessionId: string;
    /** What the session record says the agent is (its system prompt, model, thinking level). */
    agent: { systemPrompt: string; model: Model<string>; thinkingLevel: ThinkingLevel };
    meta?: Record<string, unknown>;
    checkpoints?: AgentOptions["checkpoints"];
  };
  /** Called with the run's loop actor once it exists. */
  onActor: (actor: AgentLoopActor) => void;
}

/**
 * Runs `start.request`. Throws `LoopInputError` for a restore without a session, and
 * the precondition errors of a continuation (nothing to continue from).
 */
export function startAgentLoop(start: AgentLoopStart): Promise<AgentMessage[]> {
  const { request, context, config, emit, signal, streamFn, session, onActor } = start;
  if (session) {
    if (request.kind === "continue") assertContinuable(context);
    return runDurably({
      store: session.store,
      sessionId: session.sessionId,
      prompts: request.kind === "prompt" ? request.messages : request.kind === "restore" ? "restore" : [],
      context,
      config,
      emit,
      signal,
      streamFn,
      agent: session.agent,
      ...(session.meta ? { meta: session.meta } : {}),
      onActor,
      ...(request.kind !== "continue" && request.onStarted ? { onStarted: request.onStarted } : {}),
      ...(session.checkpoints ? { checkpoints: session.checkpoints } : {}),
    });
  }
  if (request.kind === "restore") throw new LoopInputError("Only an agent with a sessionStore can restore a run");
  const options = { context, config, signal, streamFn };
  if (request.kind === "prompt") return runIntoSink({ ...options, prompts: request.messages }, emit, onActor);
  assertContinuable(context);
  return runIntoSink(options, emit, onActor);
}
