/**
 * The loop configuration of one `Agent` run: the agent's settings as they are
 * when the run starts, and its queues behind the loop's polling hooks.
 */
import { streamReasoning } from "../actors/request-model.js";
import type { AgentLoopConfig } from "../types.js";
import type { AgentSettings } from "./agent-settings.js";
import type { AgentState } from "./agent-state.js";
import type { EventDelivery } from "./event-delivery.js";
import type { MessageQueue } from "./message-queue.js";

/** The agent fields a run reads: its settings (`AgentSettings`, which `Agent` extends) and its state. */
export type AgentRunSettings = AgentSettings & { readonly state: AgentState };

/** What a run's config needs besides the settings. */
export interface AgentRunWiring {
  queues: { steering: MessageQueue; followUp: MessageQueue };
  /** The run's event delivery: polls and turn hooks wait until it settled. */
  delivery: EventDelivery;
  /** The run's abort signal, handed to pi 1.x's turn hooks. */
  signal: AbortSignal;
  /** True when the run's prompts were taken from the steering queue (so its first poll must not take another). */
  skipInitialSteeringPoll: boolean;
}

/**
 * Builds the run's config. The queue polls and the turn hooks first wait for the
 * listeners of every event emitted so far — what pi's loop, which awaits each
 * event, guarantees — so a listener that queues a message is heard by the next poll.
 */
export function createAgentLoopConfig(agent: AgentRunSettings, wiring: AgentRunWiring): AgentLoopConfig {
  const { queues, delivery, signal } = wiring;
  let skipSteeringPoll = wiring.skipInitialSteeringPoll;
  const { shouldStopAfterTurn, prepareNextTurn, prepareNextTurnWithContext, finishTurn, prepareRequest } = agent;
  const thinkingLevel = agent.state.thinkingLevel;
  return {
    model: agent.state.model,
    reasoning: streamReasoning(thinkingLevel),
    thinkingLevel,
    sessionId: agent.sessionId,
    onPayload: agent.onPayload,
    onResponse: agent.onResponse,
    transport: agent.transport,
    thinkingBudgets: agent.thinkingBudgets,
    maxRetryDelayMs: agent.maxRetryDelayMs,
    toolExecution: agent.toolExecution,
    maxTurns: agent.maxTurns,
    ...(agent.compaction ? { compaction: agent.compaction } : {}),
    ...(agent.inspect ? { inspect: agent.inspect } : {}),
    beforeToolCall: agent.beforeToolCall,
    afterToolCall: agent.afterToolCall,
    convertToLlm: agent.convertToLlm,
    transformContext: agent.transformContext,
    getApiKey: agent.getApiKey,
    shouldStopAfterTurn: shouldStopAfterTurn
      ? async (context) => {
          await delivery.settled();
          return shouldStopAfterTurn(context, signal);
        }
      : undefined,
    prepareNextTurn:
      prepareNextTurnWithContext || prepareNextTurn
        ? async (context) => {
            await delivery.settled();
            return prepareNextTurnWithContext ? prepareNextTurnWithContext(context, signal) : prepareNextTurn?.(signal);
          }
        : undefined,
    finishTurn: finishTurn
      ? async (turn, hookSignal) => {
          await delivery.settled();
          return finishTurn(turn, hookSignal ?? signal);
        }
      : undefined,
    prepareRequest: prepareRequest
      ? async (request, hookSignal) => {
          await delivery.settled();
          return prepareRequest(request, hookSignal ?? signal);
        }
      : undefined,
    getSteeringMessages: async () => {
      await delivery.settled();
      if (skipSteeringPoll) {
        skipSteeringPoll = false;
        return [];
      }
      return queues.steering.drain();
    },
    getFollowUpMessages: async () => {
      await delivery.settled();
      return queues.followUp.drain();
    },
  };
}
