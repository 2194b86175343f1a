/**
 * The stream function as DBOS steps: one step per model request, whose checkpointed result is
 * the final assistant message. On recovery a finished request is not sent again; the chart
 * gets the recorded message (as a `done`/`error` event, without the token deltas).
 */
import { createAssistantMessageEventStream } from "../providers/assistant-stream.js";
import type { AssistantMessage, StreamFn } from "../llm-types.js";
import type { EventChannel } from "./event-channel.js";

/** Wraps `streamFn` so each request is one step (not retried: a stream function never throws). */
export function durableStreamFn(streamFn: StreamFn, channel: EventChannel): StreamFn {
  return (model, context, options) => {
    const stream = createAssistantMessageEventStream();
    const request = channel.step<AssistantMessage>("loopchart.model", async () => {
      const inner = await streamFn(model, context, options);
      return inner.result();
    });
    void request.then(
      ({ value: message }) => {
        if (message.stopReason === "error" || message.stopReason === "aborted") {
          stream.push({ type: "error", reason: message.stopReason, error: message });
        } else {
          stream.push({ type: "done", reason: message.stopReason, message });
        }
      },
      (error: unknown) => {
        const message: AssistantMessage = {
          role: "assistant",
          content: [],
          api: model.api,
          provider: model.provider,
          model: model.id,
          usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
          stopReason: "error",
          errorMessage: `Model request step failed: ${error instanceof Error ? error.message : String(error)}`,
          timestamp: Date.now(),
        };
        stream.push({ type: "error", reason: "error", error: message });
      },
    );
    return stream;
  };
}
