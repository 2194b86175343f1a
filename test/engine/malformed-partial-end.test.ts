import { describe, expect, it } from "vitest";
import { agentLoop } from "../../src/index.js";
import { assistant, baseConfig, user } from "../helpers/mock-stream.js";
import { agentEnds, context, drain, rawStream } from "./hostile-run-support.js";

describe("a malformed partial followed by an invalid final event", () => {
  const valid = assistant({ text: "half" });
  it.each([
    ["content that is not an array", { ...valid, content: "half" }, []],
    ["content holding null", { ...valid, content: [{ type: "text", text: "half" }, null] }, [{ type: "text", text: "half" }]],
  ])("ends the run with the invalid event's error, not a TypeError, for a partial with %s", async (_label, partial, kept) => {
    const stream = rawStream((push) => {
      push({ type: "start", partial: { ...valid, content: [] } });
      push({ type: "toolcall_start", contentIndex: 1, partial: { ...valid, content: [] } });
      push({ type: "toolcall_delta", contentIndex: 1, delta: '{"a":', partial });
      push({ type: "done", reason: "stop" });
    });
    const { events, result } = await drain(agentLoop([user("x")], context(), baseConfig(), undefined, stream));
    const [end] = agentEnds(events);
    expect(end).toMatchObject({ exitReason: "error" });
    expect(end?.errorMessage).toMatch(/the stream function emitted an invalid done event: its `message` is undefined/);
    expect(end?.errorMessage).not.toMatch(/TypeError|forEach/);
    expect(result.at(-1)).toMatchObject({ role: "assistant", stopReason: "error", content: kept });
  });
});
