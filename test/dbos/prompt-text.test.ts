import { describe, expect, it } from "vitest";
import { promptText } from "../../src/dbos/prompt-text.js";

describe("promptText", () => {
  it("should give a string prompt as it is", () => {
    expect(promptText("Fix the tests")).toBe("Fix the tests");
  });

  it("should give the text of a message-array prompt, as the CLI sends it, not [object Object]", () => {
    expect(promptText([{ role: "user", content: "Fix the tests", timestamp: 1 }])).toBe("Fix the tests");
    expect(
      promptText([
        { role: "user", content: [{ type: "text", text: "Look at " }, { type: "image", data: "AAAA", mimeType: "image/png" }, { type: "text", text: "this." }], timestamp: 1 },
        { role: "assistant", content: [{ type: "text", text: "not a prompt" }], api: "x", provider: "x", model: "x", usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }, stopReason: "stop", timestamp: 2 },
        { role: "user", content: "Then fix it.", timestamp: 3 },
      ]),
    ).toBe("Look at this.\n\nThen fix it.");
  });
});
