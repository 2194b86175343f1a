/**
 * A scripted model first asked mid-conversation (a resumed session) answers as if it
 * had played the transcript's earlier responses, `when` matchers included.
 */
import { describe, expect, it } from "vitest";
import type { AssistantMessage, Context } from "../../src/llm-types.js";
import { createScriptedModel, type Script } from "../../src/providers/index.js";
import { collectStream } from "../support/collect-stream.js";

const script: Script = {
  name: "catch-up",
  responses: [
    { content: [{ type: "toolCall", id: "c1", name: "read", arguments: { path: "a.txt" } }] },
    { when: { isError: true }, content: [{ type: "text", text: "The read failed." }] },
    { content: [{ type: "text", text: "Read it." }] },
    { content: [{ type: "text", text: "Third request." }] },
  ],
};

const text = (message: AssistantMessage) => message.content.map((block) => (block.type === "text" ? block.text : "")).join("");

describe("a scripted model shown a transcript it did not answer", () => {
  it("should play the response after those the transcript's assistant messages took", async () => {
    const first = createScriptedModel(script);
    const go: Context = { messages: [{ role: "user", content: "go", timestamp: 1 }] };
    const call = (await collectStream(first.streamFn(first.model, go))).result;
    const failed: Context = {
      messages: [...go.messages, call, { role: "toolResult", toolCallId: "c1", toolName: "read", content: [{ type: "text", text: "ENOENT" }], isError: true, timestamp: 2 }],
    };
    const answer = (await collectStream(first.streamFn(first.model, failed))).result;
    expect(text(answer)).toBe("The read failed.");

    // A new process (a new model) resumes after the failed read: the "when" response was taken.
    const resumed = createScriptedModel(script);
    const next: Context = { messages: [...failed.messages, answer, { role: "user", content: "and?", timestamp: 3 }] };
    expect(text((await collectStream(resumed.streamFn(resumed.model, next))).result)).toBe("Read it.");
    expect(text((await collectStream(resumed.streamFn(resumed.model, next))).result)).toBe("Third request.");
  });
});
