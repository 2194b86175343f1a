import { describe, expect, it } from "vitest";
import { InvalidToolDefinitionError, ToolArgumentsError } from "../../src/errors/index.js";

describe("ToolArgumentsError", () => {
  it("writes the tool name, one line per issue, a blank line and the received arguments", () => {
    const error = new ToolArgumentsError({
      toolName: "edit",
      issues: [
        { path: "(root)", message: "must be object" },
        { path: "/a/0", message: "must be number" },
      ],
      received: ["not", "an", "object"],
    });
    expect(error.message).toBe(
      'Validation failed for tool "edit":\n  - (root): must be object\n  - /a/0: must be number\n\nReceived arguments:\n[\n  "not",\n  "an",\n  "object"\n]',
    );
    expect(error.name).toBe("ToolArgumentsError");
    expect(error).toBeInstanceOf(Error);
  });

  it("still builds a message when the received arguments cannot be serialised", () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    const error = new ToolArgumentsError({ toolName: "t", issues: [{ path: "/self", message: "bad" }], received: circular });
    expect(error.message).toContain("Received arguments:\n[object Object]");
    const missing = new ToolArgumentsError({ toolName: "t", issues: [{ path: "(root)", message: "must be object" }], received: undefined });
    expect(missing.message.endsWith("Received arguments:\nundefined")).toBe(true);
  });
});

describe("InvalidToolDefinitionError", () => {
  it("has a literal name and keeps the tool name and cause", () => {
    const cause = new Error("root cause");
    const error = new InvalidToolDefinitionError("grep", "broken", { cause });
    expect(error.name).toBe("InvalidToolDefinitionError");
    expect(error.toolName).toBe("grep");
    expect(error.cause).toBe(cause);
  });
});
