/**
 * The default summarizer: the run's own model through the run's own stream
 * function, asked with no tools declared and the summary's `maxTokens`.
 */
import type { AgentLoopConfig, AssistantMessage, Model, StreamFn } from "../types.js";
import type { SummarizeFn } from "./summarize-history.js";

/** The text of a final assistant message. */
function answerText(message: AssistantMessage): string {
  return (Array.isArray(message.content) ? message.content : [])
    .filter((block) => block?.type === "text")
    .map((block) => (block as { text: string }).text)
    .join("")
    .trim();
}

/**
 * A {@link SummarizeFn} that asks `model` through `streamFn` with the run's
 * options (API key, headers, retries), no tools and no reasoning. A failed or
 * aborted response rejects with its error message.
 */
export function modelSummarizer(streamFn: StreamFn, model: Model, config: AgentLoopConfig): SummarizeFn {
  return async (request, signal) => {
    const apiKey = (config.getApiKey ? await config.getApiKey(model.provider) : undefined) || config.apiKey;
    const stream = await streamFn(
      model,
      { systemPrompt: request.systemPrompt, messages: [{ role: "user", content: [{ type: "text", text: request.prompt }], timestamp: Date.now() }] },
      { ...config, apiKey, signal, maxTokens: request.maxTokens, reasoning: undefined, thinkingLevel: "off" },
    );
    let final: AssistantMessage | undefined;
    for await (const event of stream) {
      if (event.type === "done") final = event.message;
      else if (event.type === "error") final = event.error;
    }
    final ??= await stream.result();
    if (final.stopReason === "error" || final.stopReason === "aborted") {
      throw new Error(`the summary request failed: ${final.errorMessage ?? final.stopReason}`);
    }
    const text = answerText(final);
    if (text === "") throw new Error("the summary request answered with no text");
    return text;
  };
}
