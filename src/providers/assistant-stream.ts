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
 *
 * Each pushed event's `partial` is copied as it is pushed (the message, its usage and
 * each content block; strings are shared), so a consumer that reads a burst of events
 * later sees every event with the message as it was at that event — not the provider's
 * live message, which has grown since. Traces and `--json` rely on it: a delta's line
 * leaves the message out only when the lines before rebuild it exactly.
 */
export type PushableAssistantMessageEventStream = EventStream<AssistantMessageEvent, AssistantMessage>;

/** Creates an empty pushable assistant event stream that completes on `done`/`error`. */
export function createAssistantMessageEventStream(): PushableAssistantMessageEventStream {
  return new SnapshottingAssistantStream(
    (event) => event.type === "done" || event.type === "error",
    (event) => {
      if (event.type === "done") return event.message;
      if (event.type === "error") return event.error;
      throw new Error(`Unexpected completing event: ${event.type}`);
    },
  );
}

class SnapshottingAssistantStream extends EventStream<AssistantMessageEvent, AssistantMessage> {
  override push(event: AssistantMessageEvent): void {
    super.push("partial" in event ? ({ ...event, partial: snapshotPartial(event.partial) } as AssistantMessageEvent) : event);
  }
}

/** A copy of a partial message as it is now: what a provider mutates in place (content blocks, usage) is copied. */
export function snapshotPartial(partial: AssistantMessage): AssistantMessage {
  if (typeof partial !== "object" || partial === null) return partial;
  const copy: AssistantMessage = { ...partial };
  if (Array.isArray(partial.content)) {
    copy.content = partial.content.map((block) => (typeof block === "object" && block !== null ? { ...block } : block));
  }
  if (typeof partial.usage === "object" && partial.usage !== null) {
    copy.usage = { ...partial.usage, cost: typeof partial.usage.cost === "object" && partial.usage.cost !== null ? { ...partial.usage.cost } : partial.usage.cost };
  }
  return copy;
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
