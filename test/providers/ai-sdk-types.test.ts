/**
 * The model message types loopchart's declarations write out (src/providers/ai-sdk-types.ts,
 * so that a skipLibCheck: false user does not load @ai-sdk/provider-utils and through it
 * zod 3's declarations) stay the AI SDK's: assignable to its `ModelMessage` (checked by
 * `npm run typecheck`), and what toModelMessages builds passes the AI SDK's own schema.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import { modelMessageSchema, type ModelMessage as AiModelMessage } from "ai";
import { toModelMessages } from "../../src/providers/index.js";
import type { ModelMessage } from "../../src/providers/ai-sdk-types.js";
import type { AssistantMessage, Message } from "../../src/types.js";

const ZERO = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };

const assistant = (content: AssistantMessage["content"]): AssistantMessage => ({
  role: "assistant",
  content,
  api: "x",
  provider: "x",
  model: "x",
  usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: ZERO },
  stopReason: "toolUse",
  timestamp: 1,
});

describe("the AI SDK model message types loopchart declares", () => {
  it("are assignable to the AI SDK's ModelMessage", () => {
    expectTypeOf<ModelMessage>().toExtend<AiModelMessage>();
    expectTypeOf(toModelMessages).returns.toExtend<AiModelMessage[]>();
  });

  it("describe messages the AI SDK's own schema accepts: every kind toModelMessages builds", () => {
    const messages: Message[] = [
      { role: "user", content: "plain", timestamp: 1 },
      { role: "user", content: [{ type: "text", text: "look" }, { type: "image", data: "AAAA", mimeType: "image/png" }], timestamp: 1 },
      assistant([
        { type: "text", text: "let me see" },
        { type: "thinking", thinking: "hmm", thinkingSignature: "sig" },
        { type: "thinking", thinking: "", redacted: true, thinkingSignature: "opaque" },
        { type: "toolCall", id: "a", name: "read", arguments: { path: "x" } },
        { type: "toolCall", id: "b", name: "bash", arguments: { command: "ls" } },
        { type: "toolCall", id: "c", name: "shot", arguments: {} },
        { type: "toolCall", id: "d", name: "lost", arguments: {} },
      ]),
      { role: "toolResult", toolCallId: "a", toolName: "read", content: [{ type: "text", text: "X" }], isError: false, timestamp: 2 },
      { role: "toolResult", toolCallId: "b", toolName: "bash", content: [{ type: "text", text: "boom" }], isError: true, timestamp: 2 },
      {
        role: "toolResult",
        toolCallId: "c",
        toolName: "shot",
        content: [{ type: "text", text: "a picture" }, { type: "image", data: "AAAA", mimeType: "image/png" }],
        isError: false,
        timestamp: 2,
      },
    ];
    const built = toModelMessages(messages);
    expect(built.map((message) => message.role)).toEqual(["user", "user", "assistant", "tool"]);
    for (const message of built) {
      const parsed = modelMessageSchema.safeParse(message);
      expect(parsed.success, JSON.stringify(message)).toBe(true);
    }
  });
});
