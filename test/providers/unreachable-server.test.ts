import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import type { Context } from "../../src/llm-types.js";
import { createProviderModel, type ProviderName } from "../../src/providers/index.js";

/** A loopback port nothing listens on: bound once, then closed, so connecting is refused. */
async function refusingPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return address.port;
}

const context: Context = { systemPrompt: "", messages: [{ role: "user", content: "hi", timestamp: 1 }] };

async function failOnce(provider: ProviderName, baseURL: string): Promise<{ errorMessage: string | undefined; requests: number }> {
  let requests = 0;
  const counting = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    requests += 1;
    return fetch(input, init);
  };
  const { model, streamFn } = createProviderModel({ provider, modelId: "m", apiKey: "k", baseURL, fetch: counting });
  const message = await (await streamFn(model, context)).result();
  expect(message.stopReason).toBe("error");
  return { errorMessage: message.errorMessage, requests };
}

describe("a model server that cannot be reached", () => {
  it.each(["openai-compatible", "openai", "anthropic"] as const)(
    "should fail the %s request once with a message naming the URL when the connection is refused",
    async (provider) => {
      const port = await refusingPort();
      const { errorMessage, requests } = await failOnce(provider, `http://127.0.0.1:${port}/v1`);
      expect(requests).toBe(1);
      expect(errorMessage).toContain(`http://127.0.0.1:${port}/v1/`);
      expect(errorMessage).toContain("refused");
    },
  );

  it("should fail once on a port fetch never connects to, saying so", async () => {
    const { errorMessage, requests } = await failOnce("openai-compatible", "http://127.0.0.1:9/v1");
    expect(requests).toBe(1);
    expect(errorMessage).toMatch(/^Cannot reach http:\/\/127\.0\.0\.1:9\/v1\/chat\/completions: .*blocked port/u);
  });
});
