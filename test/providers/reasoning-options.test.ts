/**
 * Reasoning levels, pi 1.x's "max" included, as the AI SDK adapter sends them: pure
 * mapping, the loop's stream options, and a real Anthropic client against a loopback server.
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { afterEach, describe, expect, it } from "vitest";
import type { Model } from "../../src/llm-types.js";
import { fromAiSdk } from "../../src/providers/index.js";
import { reasoningProviderOptions, resolveThinkingLevel } from "../../src/providers/reasoning-options.js";
import { streamReasoning } from "../../src/actors/request-model.js";
import { agentLoop } from "../../src/index.js";
import { collectStream } from "../support/collect-stream.js";
import { startScriptedServer, type ScriptedServer } from "../support/scripted-server.js";
import { baseConfig, collect, mockStream, user } from "../helpers/mock-stream.js";

const base: Model = {
  id: "m",
  name: "m",
  api: "anthropic-messages",
  provider: "loopback",
  baseUrl: "",
  reasoning: true,
  input: ["text"],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 100_000,
  maxTokens: 32_000,
};

globalThis.AI_SDK_LOG_WARNINGS = false;

describe("reasoning levels for providers", () => {
  it('serves "max" and "xhigh" as "high" unless the model names them, and maps unsupported levels down', () => {
    expect(resolveThinkingLevel(base, "max")).toEqual({ standard: "high" });
    expect(resolveThinkingLevel(base, "xhigh")).toEqual({ standard: "high" });
    expect(resolveThinkingLevel({ thinkingLevelMap: { max: "max" } }, "max")).toEqual({ named: "max" });
    expect(resolveThinkingLevel({ thinkingLevelMap: { max: null, xhigh: "xhigh" } }, "max")).toEqual({ named: "xhigh" });
    expect(resolveThinkingLevel({ thinkingLevelMap: { minimal: null } }, "minimal")).toBeUndefined();
  });

  it("builds Anthropic thinking and OpenAI Responses effort options, and none for a model that does not reason", () => {
    expect(reasoningProviderOptions(base, { thinkingLevel: "max", reasoning: "xhigh" })).toEqual({
      anthropic: { thinking: { type: "enabled", budgetTokens: 16384 } },
    });
    expect(reasoningProviderOptions({ ...base, thinkingLevelMap: { max: "max" } }, { thinkingLevel: "max" })).toEqual({
      anthropic: { thinking: { type: "adaptive" }, effort: "max" },
    });
    expect(reasoningProviderOptions({ ...base, api: "openai-responses" }, { reasoning: "low" })).toEqual({ openai: { reasoningEffort: "low" } });
    expect(reasoningProviderOptions({ ...base, api: "openai-responses" }, { thinkingLevel: "max" })).toEqual({ openai: { reasoningEffort: "high" } });
    expect(reasoningProviderOptions({ ...base, reasoning: false }, { reasoning: "high" })).toBeUndefined();
    expect(reasoningProviderOptions(base, { thinkingLevel: "off" })).toBeUndefined();
  });

  it('the loop sends "max" to a stream function as reasoning "xhigh" with thinkingLevel "max"', async () => {
    expect(streamReasoning("max")).toBe("xhigh");
    expect(streamReasoning("off")).toBeUndefined();
    const stream = mockStream([{ text: "ok" }]);
    await collect(agentLoop([user("go")], { systemPrompt: "", messages: [] }, baseConfig({ thinkingLevel: "max" }), undefined, stream));
    expect(stream.requests[0]?.options).toMatchObject({ reasoning: "xhigh", thinkingLevel: "max" });
  });

  describe("over a real Anthropic client", () => {
    let server: ScriptedServer | undefined;
    afterEach(async () => {
      await server?.close();
      server = undefined;
    });

    it("asks for extended thinking with the level's budget; the adapter's own providerOptions win", async () => {
      server = await startScriptedServer({ responses: [{ content: [{ type: "text", text: "a" }] }, { content: [{ type: "text", text: "b" }] }] });
      const client = createAnthropic({ apiKey: "dummy", baseURL: `${server.url}/v1` })("m");
      const context = { systemPrompt: "", messages: [{ role: "user" as const, content: "think", timestamp: 1 }] };
      await collectStream(fromAiSdk(client, { maxRetries: 0 })(base, context, { thinkingLevel: "max", reasoning: "xhigh" }));
      expect((server.requests[0]?.body as { thinking?: unknown }).thinking).toEqual({ type: "enabled", budget_tokens: 16384 });
      const overridden = fromAiSdk(client, { maxRetries: 0, providerOptions: { anthropic: { thinking: { type: "enabled", budgetTokens: 4096 } } } });
      await collectStream(overridden(base, context, { reasoning: "high" }));
      expect((server.requests[1]?.body as { thinking?: unknown }).thinking).toEqual({ type: "enabled", budget_tokens: 4096 });
    });
  });
});
