import type { AgentEvent, AgentMessage, AssistantMessage, ExitReason } from "../types.js";

/** Figures of one run, accumulated from its events. */
export interface RunStats {
  turns: number;
  toolCalls: number;
  toolErrors: number;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  /** Dollars; 0 when the model has no prices. */
  cost: number;
  exitReason?: ExitReason;
  /** The `errorMessage` of the last assistant response that failed. */
  lastError?: string;
}

/** A fresh, all-zero {@link RunStats}. */
export function emptyRunStats(): RunStats {
  return { turns: 0, toolCalls: 0, toolErrors: 0, inputTokens: 0, outputTokens: 0, totalTokens: 0, cost: 0 };
}

/** Folds one event into `stats` (mutating it): turns, tool calls, usage of finished responses, exit reason. */
export function observeEvent(stats: RunStats, event: AgentEvent): void {
  switch (event.type) {
    case "turn_start":
      stats.turns += 1;
      return;
    case "tool_execution_end":
      stats.toolCalls += 1;
      if (event.isError) stats.toolErrors += 1;
      return;
    case "message_end": {
      const message = asAssistant(event.message);
      if (message === undefined) return;
      const usage = message.usage;
      if (usage !== undefined) {
        stats.inputTokens += usage.input ?? 0;
        stats.outputTokens += usage.output ?? 0;
        stats.totalTokens += usage.totalTokens ?? 0;
        stats.cost += usage.cost?.total ?? 0;
      }
      if ((message.stopReason === "error" || message.stopReason === "aborted") && message.errorMessage) {
        stats.lastError = message.errorMessage;
      }
      return;
    }
    case "agent_end":
      stats.exitReason = event.exitReason;
      return;
    default:
      return;
  }
}

/** The message as an assistant message, or undefined for other roles. */
export function asAssistant(message: AgentMessage): AssistantMessage | undefined {
  return (message as { role?: string }).role === "assistant" ? (message as AssistantMessage) : undefined;
}
