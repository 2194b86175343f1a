/**
 * One `Agent` run's lifecycle: the agent is busy from the start (an active run with
 * its abort controller and idle promise) and idle at the end whatever happens; the
 * run's events go through one `EventDelivery` to the agent's state and listeners in
 * order; a failure outside the loop (a listener threw, the loop faulted) is recorded
 * as an `error`/`aborted` assistant message with the protocol's tail, as pi 1.x
 * does. Only a precondition error before any event rejects.
 */
import type { AgentLoopActor } from "../agent-loop-actor.js";
import type { AgentEvent, AgentEventSink, AgentMessage } from "../types.js";
import { isPreconditionError } from "./agent-input.js";
import { runFailureMessage, type MutableAgentState } from "./agent-state.js";
import { EventDelivery, type MaybePromise } from "./event-delivery.js";

/** The run an agent is busy with. */
export interface ActiveRun {
  controller: AbortController;
  idle: Promise<void>;
  /** The run's loop actor, once created: approval decisions are sent to it. */
  actor?: AgentLoopActor;
}

/** What the lifecycle needs from the agent. */
export interface AgentLifecycle {
  state: MutableAgentState;
  /** Applies an event to the state and calls the listeners (awaited before the next event). */
  handleEvent(event: AgentEvent, signal: AbortSignal): MaybePromise;
  /** Marks the agent busy with `run`, or idle (undefined). */
  setActive(run: ActiveRun | undefined): void;
  /** Starts the loop, delivering its events to `emit`; settles when it ended. */
  start(delivery: EventDelivery, emit: AgentEventSink, signal: AbortSignal): Promise<AgentMessage[]>;
}

/** Runs one agent run from busy to idle; see the module comment. */
export async function runAgentLifecycle(agent: AgentLifecycle): Promise<void> {
  const controller = new AbortController();
  let markIdle = () => {};
  const idle = new Promise<void>((resolve) => {
    markIdle = resolve;
  });
  agent.setActive({ controller, idle });
  agent.state.isStreaming = true;
  agent.state.streamingMessage = undefined;
  agent.state.errorMessage = undefined;

  let failure: { error: unknown; aborted: boolean } | undefined;
  const delivery = new EventDelivery(
    (event) => agent.handleEvent(event, controller.signal),
    (error) => {
      failure ??= { error, aborted: controller.signal.aborted };
      controller.abort();
    },
  );
  let emitted = false;
  const emit: AgentEventSink = (event) => {
    emitted = true;
    delivery.push(event);
  };
  try {
    try {
      await agent.start(delivery, emit, controller.signal);
    } catch (error) {
      if (!emitted && isPreconditionError(error)) throw error;
      failure ??= { error, aborted: controller.signal.aborted };
    }
    await delivery.settled();
    if (failure) await recordFailure(agent, failure.error, failure.aborted, controller.signal);
  } finally {
    agent.state.isStreaming = false;
    agent.state.streamingMessage = undefined;
    agent.state.pendingToolCalls = new Set<string>();
    agent.setActive(undefined);
    markIdle();
  }
}

/**
 * A failure outside the loop: appends an `error`/`aborted` assistant message and
 * announces it with the full protocol tail (`message_start`, `message_end`,
 * `turn_end`, `agent_end`). A listener throwing here rejects the run.
 */
async function recordFailure(agent: AgentLifecycle, error: unknown, aborted: boolean, signal: AbortSignal): Promise<void> {
  const message = runFailureMessage(agent.state.model, error, aborted);
  await agent.handleEvent({ type: "message_start", message }, signal);
  await agent.handleEvent({ type: "message_end", message }, signal);
  await agent.handleEvent({ type: "turn_end", message, toolResults: [] }, signal);
  await agent.handleEvent({ type: "agent_end", messages: [message], exitReason: aborted ? "aborted" : "error", errorMessage: message.errorMessage }, signal);
}
