/**
 * Plain message builders shared by the chart, the runtime and the providers:
 * zero usage and an empty assistant message. Pure data, no I/O.
 */
import type { Api, AssistantMessage, Model, StopReason, Usage } from "./llm-types.js";

/** Usage with every count and cost at zero. Returns a fresh object each call. */
export function createZeroUsage(): Usage {
  return {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 0,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
}

/**
 * An assistant message with no content yet, stamped with the model's api,
 * provider and id, zero usage and stopReason `stop`; providers fill it in place.
 */
export function createEmptyAssistantMessage(model: Pick<Model<Api>, "api" | "provider" | "id">): AssistantMessage {
  return {
    role: "assistant",
    content: [],
    api: model.api,
    provider: model.provider,
    model: model.id,
    usage: createZeroUsage(),
    stopReason: "stop",
    timestamp: Date.now(),
  };
}


/**
 * The final assistant message standing for a request that failed — before the
 * model answered, or when the stream broke its contract — with `errorMessage`.
 * The one builder of failed responses, for the chart and the runtime alike.
 */
export function failedResponse(
  model: Pick<Model<Api>, "api" | "provider" | "id">,
  errorMessage: string,
  stopReason: Extract<StopReason, "error" | "aborted"> = "error",
): AssistantMessage {
  return { ...createEmptyAssistantMessage(model), stopReason, errorMessage };
}
