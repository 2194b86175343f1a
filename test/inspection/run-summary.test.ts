import { describe, expect, it } from "vitest";
import { RUN_PROMPT_CHARS, promptOfRecord } from "../../src/inspection/run-summary.js";

const userMessage = (content: unknown, type = "message_end") => ({ t: 1, event: { type, message: { role: "user", content, timestamp: 1 } } });

describe("a run's name", () => {
  it("is the text of a user message's start or end event, on one line", () => {
    expect(promptOfRecord(userMessage("Tidy up\n  this   workspace"))).toBe("Tidy up this workspace");
    expect(promptOfRecord(userMessage([{ type: "text", text: "first" }, { type: "image", data: "" }, { type: "text", text: "second" }], "message_start"))).toBe("first second");
  });

  it("cuts a long prompt to its first characters", () => {
    const name = promptOfRecord(userMessage("x".repeat(500)));
    expect(name).toHaveLength(RUN_PROMPT_CHARS);
    expect(name?.endsWith("…")).toBe(true);
  });

  it("is nothing for other records: assistant messages, other events, inspection records, empty prompts, junk", () => {
    expect(promptOfRecord({ t: 1, event: { type: "message_end", message: { role: "assistant", content: "hi" } } })).toBeUndefined();
    expect(promptOfRecord({ t: 1, event: { type: "agent_start" } })).toBeUndefined();
    expect(promptOfRecord({ t: 1, inspect: { type: "@xstate.actor" } })).toBeUndefined();
    expect(promptOfRecord(userMessage("   "))).toBeUndefined();
    expect(promptOfRecord(null)).toBeUndefined();
    expect(promptOfRecord("text")).toBeUndefined();
  });
});
