/**
 * The pi-compatible façade: `agentLoop`, `agentLoopContinue`, `runAgentLoop`,
 * `runAgentLoopContinue` (same parameters and semantics as pi-agent-core 0.73). The actor
 * they run is built in `agent-loop-actor.ts`; this file's declarations name no XState type,
 * so the main entry's do not either.
 */
import { createAgentLoopActor, runActor, runIntoSink, type AgentLoopActor, type CreateAgentLoopActorOptions } from "./agent-loop-actor.js";
import { EventStream } from "./event-stream.js";
import { telemetryFor } from "./inspection/telemetry.js";
import { assertContinuable } from "./loop-input.js";
import type { AgentContext, AgentEvent, AgentEventSink, AgentLoopConfig, AgentMessage, StreamFn } from "./types.js";

/** The run's event stream; breaking out of `for await` over it (its `return()`) aborts the run. */
function createAgentStream(onCancel: () => void): EventStream<AgentEvent, AgentMessage[]> {
  return new EventStream<AgentEvent, AgentMessage[]>(
    (event) => event.type === "agent_end",
    (event) => (event.type === "agent_end" ? event.messages : []),
    { onCancel },
  );
}

function streamRun(options: CreateAgentLoopActorOptions): EventStream<AgentEvent, AgentMessage[]> {
  const cancelled = { actor: undefined as AgentLoopActor | undefined };
  const stream = createAgentStream(() => cancelled.actor?.send({ type: "run.abort" }));
  const telemetry = telemetryFor(options.config);
  const deliver = (event: AgentEvent) => (telemetry?.(event), stream.push(event));
  const inspect = options.inspect ?? options.config.inspect;
  const actor = createAgentLoopActor({ ...options, ...(inspect ? { inspect } : {}), onEvent: deliver });
  cancelled.actor = actor;
  void runActor(actor, deliver).then((output) => stream.end(output.messages));
  return stream;
}

/**
 * Starts a run with new prompt messages. The prompts are appended to a copy of
 * the context and emitted as `message_start`/`message_end` after `agent_start`
 * and `turn_start`. Returns the event stream; `result()` resolves with the new
 * messages (prompts included). Throws synchronously on bad input.
 */
export function agentLoop(
  prompts: AgentMessage[],
  context: AgentContext,
  config: AgentLoopConfig,
  signal?: AbortSignal,
  streamFn?: StreamFn,
): EventStream<AgentEvent, AgentMessage[]> {
  return streamRun({ prompts, context, config, ...(signal ? { signal } : {}), streamFn });
}

/**
 * Continues from the current context without adding a message (retries). Throws
 * synchronously when the context is empty or ends with an assistant message.
 */
export function agentLoopContinue(
  context: AgentContext,
  config: AgentLoopConfig,
  signal?: AbortSignal,
  streamFn?: StreamFn,
): EventStream<AgentEvent, AgentMessage[]> {
  assertContinuable(context);
  return streamRun({ context, config, ...(signal ? { signal } : {}), streamFn });
}

/**
 * Like `agentLoop`, delivering events to `emit` instead of a stream. Async sinks
 * see events one at a time in order; the promise resolves with the new messages
 * once the run ended and the sink settled, and rejects only if the sink threw.
 */
export async function runAgentLoop(
  prompts: AgentMessage[],
  context: AgentContext,
  config: AgentLoopConfig,
  emit: AgentEventSink,
  signal?: AbortSignal,
  streamFn?: StreamFn,
): Promise<AgentMessage[]> {
  return runIntoSink({ prompts, context, config, ...(signal ? { signal } : {}), streamFn }, emit);
}

/** Like `agentLoopContinue`, delivering events to `emit`. Same preconditions. */
export async function runAgentLoopContinue(
  context: AgentContext,
  config: AgentLoopConfig,
  emit: AgentEventSink,
  signal?: AbortSignal,
  streamFn?: StreamFn,
): Promise<AgentMessage[]> {
  assertContinuable(context);
  return runIntoSink({ context, config, ...(signal ? { signal } : {}), streamFn }, emit);
}
