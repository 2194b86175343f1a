/**
 * Building blocks every provider shares: the pushable assistant event stream,
 * an empty assistant message to fill while streaming, and zeroed usage.
 */
import { EventStream } from "../event-stream.js";
import type { Api, AssistantMessage, AssistantMessageEvent, Model, StopReason, Usage } from "../llm-types.js";

/**
 * An {@link import("../llm-types.js").AssistantMessageEventStream} a provider pushes into.
 * It completes on the first `done` or `error` event; `result()` resolves with that
 * event's message. Pushes after completion are ignored.
 */
export type PushableAssistantMessageEventStream = EventStream<AssistantMessageEvent, AssistantMessage>;

/** Creates an empty pushable assistant event stream that completes on `done`/`error`. */
export function createAssistantMessageEventStream(): PushableAssistantMessageEventStream {
  return new EventStream<AssistantMessageEvent, AssistantMessage>(
    (event) => event.type === "done" || event.type === "error",
    (event) => {
      if (event.type === "done") return event.message;
      if (event.type === "error") return event.error;
      throw new Error(`Unexpected completing event: ${event.type}`);
    },
  );
}

export { createEmptyAssistantMessage, createZeroUsage } from "../messages.js";

/**
 * Fills `usage.cost` from the model's prices (dollars per million tokens) and the
 * token counts already in `usage`. Mutates and returns `usage`.
 */
export function applyModelCost(model: Pick<Model<Api>, "cost">, usage: Usage): Usage {
  const perToken = (pricePerMillion: number): number => pricePerMillion / TOKENS_PER_MILLION;
  usage.cost.input = usage.input * perToken(model.cost.input);
  usage.cost.output = usage.output * perToken(model.cost.output);
  usage.cost.cacheRead = usage.cacheRead * perToken(model.cost.cacheRead);
  usage.cost.cacheWrite = usage.cacheWrite * perToken(model.cost.cacheWrite);
  usage.cost.total = usage.cost.input + usage.cost.output + usage.cost.cacheRead + usage.cost.cacheWrite;
  return usage;
}

const TOKENS_PER_MILLION = 1_000_000;

/**
 * Ends `stream` with `message` as a failure: sets stopReason and errorMessage and
 * pushes the `error` event. Used for request errors and aborts alike.
 */
export function failAssistantStream(
  stream: PushableAssistantMessageEventStream,
  message: AssistantMessage,
  reason: Extract<StopReason, "error" | "aborted">,
  errorMessage: string,
): void {
  message.stopReason = reason;
  message.errorMessage = errorMessage;
  stream.push({ type: "error", reason, error: message });
}

/** The `errorMessage` of a message that ended because its signal was aborted. */
export const REQUEST_ABORTED_MESSAGE = "Request was aborted";
