import { describe, expect, it } from "vitest";
import { isContextOverflow, isShortLengthStop, overflowWordingOf } from "../../src/compaction/overflow.js";
import { describeProviderError } from "../../src/providers/describe-provider-error.js";
import { APICallError } from "ai";

/** What each provider's server says when the prompt does not fit, as loopchart's providers put it in `errorMessage`. */
const OVERFLOWS: [provider: string, errorMessage: string][] = [
  ["openai", "HTTP 400: This model's maximum context length is 128000 tokens. However, your messages resulted in 130567 tokens. Please reduce the length of the messages. (context_length_exceeded)"],
  ["openai", "HTTP 400: Your input exceeds the context window of this model. Please adjust your input and try again."],
  ["anthropic", "HTTP 400: prompt is too long: 213462 tokens > 200000 maximum"],
  ["anthropic", 'HTTP 413: {"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum size"}}'],
  ["vllm", "HTTP 400: This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion)."],
  ["openai-compatible", "HTTP 400: Requested token count exceeds the model's maximum context length of 131072 tokens."],
  ["llama.cpp", "HTTP 400: the request exceeds the available context size. try increasing the context size or enable context shift"],
  ["llama.cpp", "HTTP 400: the request exceeds the available context size, try increasing it (exceed_context_size_error)"],
  ["lmstudio", "HTTP 400: Trying to keep the first 9000 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input. The number of tokens to keep from the initial prompt is greater than the context length"],
  ["lmstudio", "HTTP 400: Context size has been exceeded."],
  ["ollama", "HTTP 400: prompt too long; exceeded max context length by 120 tokens"],
  ["google", "HTTP 400: The input token count (1196265) exceeds the maximum number of tokens allowed (1048575)."],
  ["mistral", "HTTP 400: Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length"],
  ["xai", "HTTP 400: This model's maximum prompt length is 131072 but the request contains 537812 tokens."],
  ["groq", "HTTP 400: Please reduce the length of the messages or completion."],
  ["together", "HTTP 400: The input (40000 tokens) is longer than the model's context length (32768 tokens)."],
  ["llama-cpp-python", "HTTP 400: Requested tokens (2285) exceed context window of 2048"],
];

const failed = (errorMessage: string) => ({ stopReason: "error" as const, errorMessage });

describe("overflow classification", () => {
  it.each(OVERFLOWS)("recognises %s's wording", (provider, errorMessage) => {
    expect(overflowWordingOf(errorMessage)).toBe(provider);
    expect(isContextOverflow(failed(errorMessage))).toBe(true);
  });

  it.each([
    "HTTP 429: Rate limit reached for gpt-4o: too many tokens per minute",
    "HTTP 500: loopback server failed",
    "HTTP 401: Incorrect API key provided",
    "HTTP 400: Invalid value for 'tool_choice'",
    "ThrottlingException: Too many requests, please wait",
  ])("does not call %j an overflow", (errorMessage) => {
    expect(isContextOverflow(failed(errorMessage))).toBe(false);
  });

  it("only a failed response overflows: the same words in a finished answer do not count", () => {
    expect(isContextOverflow({ stopReason: "stop", errorMessage: "prompt is too long" })).toBe(false);
  });

  it("names OpenAI's context_length_exceeded code from the response body when the message does not", () => {
    const error = new APICallError({
      message: "Your messages are too long for this model.",
      url: "http://127.0.0.1/v1/chat/completions",
      requestBodyValues: {},
      statusCode: 400,
      responseBody: JSON.stringify({ error: { message: "Your messages are too long for this model.", type: "invalid_request_error", code: "context_length_exceeded" } }),
    });
    const text = describeProviderError(error);
    expect(text).toBe("HTTP 400: Your messages are too long for this model. (context_length_exceeded)");
    expect(overflowWordingOf(text)).toBe("openai");
  });

  it("a length stop far below the output allowed is an overflow; one near it is not", () => {
    const stop = (output: number) => ({ stopReason: "length" as const, usage: { input: 1, output, cacheRead: 0, cacheWrite: 0, totalTokens: 1, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } } });
    expect(isShortLengthStop(stop(3), 4096)).toBe(true);
    expect(isShortLengthStop(stop(4000), 4096)).toBe(false);
    expect(isShortLengthStop({ ...stop(3), stopReason: "stop" as const }, 4096)).toBe(false);
  });
});
