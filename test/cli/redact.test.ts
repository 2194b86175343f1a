import { describe, expect, it } from "vitest";
import { REDACTED, createRedactor } from "../../src/cli/redact.js";

describe("createRedactor", () => {
  it("should replace the values of OPENAI_API_KEY and ANTHROPIC_API_KEY wherever they appear", () => {
    const redactor = createRedactor({ env: { OPENAI_API_KEY: "open-secret-123", ANTHROPIC_API_KEY: "anthropic-secret-456" } });
    expect(redactor.text("key=open-secret-123 and anthropic-secret-456!")).toBe(`key=${REDACTED} and ${REDACTED}!`);
  });

  it("should replace sk- shaped keys even when they are not known", () => {
    const redactor = createRedactor();
    expect(redactor.text("Bearer sk-proj-abcdefghijklmnopqrstuvwxyz0123")).toBe(`Bearer ${REDACTED}`);
    expect(redactor.text("sk-short")).toBe("sk-short");
  });

  it("should redact fields named like keys whatever their value, and strings nested anywhere", () => {
    const redactor = createRedactor({ secrets: ["given-key-789"] });
    const json = redactor.stringify({ apiKey: "x", headers: { Authorization: "Bearer abc" }, deep: [{ text: "use given-key-789" }] });
    expect(JSON.parse(json)).toEqual({ apiKey: REDACTED, headers: { Authorization: REDACTED }, deep: [{ text: `use ${REDACTED}` }] });
  });

  it("should not search for secrets shorter than the minimum length", () => {
    const redactor = createRedactor({ env: { OPENAI_API_KEY: "test" } });
    expect(redactor.text("a test run")).toBe("a test run");
  });
});
