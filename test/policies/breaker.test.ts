import { describe, expect, it } from "vitest";
import { agentLoop } from "../../src/index.js";
import type { AgentEvent, AgentMessage } from "../../src/types.js";
import { baseConfig, collect, mockStream, trace, user } from "../helpers/mock-stream.js";
import { echoTool } from "../helpers/tools.js";

/** The same malformed call: `text` must be a string. */
const malformed = (id: string) => ({ id, name: "echo", arguments: { words: ["not", "text"] } });
const textOf = (message: AgentMessage | undefined): string => {
  const content = (message as { content?: unknown } | undefined)?.content;
  return typeof content === "string" ? content : JSON.stringify(content);
};

describe("the invalid-call breaker", () => {
  it("stops the run with exit reason invalidCalls after the same failing call three times in a row", async () => {
    const { tool, calls } = echoTool();
    const stream = mockStream([
      { calls: [malformed("a")] },
      { calls: [malformed("b")] },
      { calls: [malformed("c")] },
      { calls: [malformed("d")] },
      { text: "never asked" },
    ]);
    const { events, result } = await collect(agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [tool] }, baseConfig(), undefined, stream));
    expect(stream.requests).toHaveLength(3);
    expect(calls).toHaveLength(0);
    const end = events.at(-1) as Extract<AgentEvent, { type: "agent_end" }>;
    expect(end).toMatchObject({ type: "agent_end", exitReason: "invalidCalls" });
    expect(end.errorMessage).toContain("echo 3 times in a row");
    expect(end.errorMessage).toContain("text");
    // Every call still got its error result, and the last turn ended before the run did.
    expect(result.filter((message) => (message as { role?: string }).role === "toolResult")).toHaveLength(3);
    expect(trace(events).slice(-3)).toEqual(["message_end:toolResult", "turn_end", "agent_end:invalidCalls"]);
  });

  it("counts the same failing call within one batch, and a different one restarts the count", async () => {
    const { tool } = echoTool();
    const other = { id: "x", name: "echo", arguments: { text: ["seven"] } };
    const stream = mockStream([
      { calls: [malformed("a"), malformed("b"), other] },
      { calls: [malformed("c"), malformed("d")] },
      { calls: [malformed("e")] },
      { text: "never asked" },
    ]);
    const { events } = await collect(agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [tool] }, baseConfig(), undefined, stream));
    // Turn 1 ends on a different failing call (count 1); turn 2 makes malformed 1, 2; turn 3 makes it 3.
    expect(stream.requests).toHaveLength(3);
    expect(events.at(-1)).toMatchObject({ exitReason: "invalidCalls" });
  });

  it("resets when a call gets past validation, and counts unknown tools too", async () => {
    const { tool, calls } = echoTool();
    const ghost = (id: string) => ({ id, name: "ghost", arguments: {} });
    const stream = mockStream([
      { calls: [malformed("a")] },
      { calls: [malformed("b")] },
      { calls: [{ id: "ok", name: "echo", arguments: { text: "fine" } }] },
      { calls: [malformed("c")] },
      { calls: [ghost("g1")] },
      { calls: [ghost("g2")] },
      { calls: [ghost("g3")] },
      { text: "never asked" },
    ]);
    const { events } = await collect(agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [tool] }, baseConfig(), undefined, stream));
    expect(calls.map((call) => call.id)).toEqual(["ok"]);
    expect(stream.requests).toHaveLength(7);
    const end = events.at(-1) as Extract<AgentEvent, { type: "agent_end" }>;
    expect(end.exitReason).toBe("invalidCalls");
    expect(end.errorMessage).toContain("Tool ghost not found");
  });

  it('with onInvalidCallLimit "hint" sends one steering message naming the error and the schema, then stops on the next repeat', async () => {
    const { tool } = echoTool();
    const stream = mockStream([
      { calls: [malformed("a")] },
      { calls: [malformed("b")] },
      { calls: [malformed("c")] },
      { calls: [malformed("d")] },
      { text: "never asked" },
    ]);
    const { events } = await collect(
      agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [tool] }, baseConfig({ onInvalidCallLimit: "hint" }), undefined, stream),
    );
    expect(stream.requests).toHaveLength(4);
    const hints = stream.requests[3]?.context.messages.filter((message) => message.role === "user").slice(1) ?? [];
    expect(hints).toHaveLength(1);
    const hint = textOf(hints[0]);
    expect(hint).toContain('calls to "echo"');
    expect(hint).toContain("text");
    expect(hint).toContain('"type": "string"');
    // The hint is the last message before the fourth request, announced as a message.
    expect(stream.requests[3]?.context.messages.at(-1)?.role).toBe("user");
    expect(events.filter((event) => event.type === "message_end" && textOf(event.message) === hint)).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ exitReason: "invalidCalls" });
  });

  it("gives the model its turn back when it fixes the call after the hint", async () => {
    const { tool, calls } = echoTool();
    const stream = mockStream([
      { calls: [malformed("a")] },
      { calls: [malformed("b")] },
      { calls: [{ id: "fixed", name: "echo", arguments: { text: "42" } }] },
      { text: "done" },
    ]);
    const { events } = await collect(
      agentLoop(
        [user("go")],
        { systemPrompt: "", messages: [], tools: [tool] },
        baseConfig({ invalidCallLimit: 2, onInvalidCallLimit: "hint" }),
        undefined,
        stream,
      ),
    );
    expect(calls.map((call) => call.id)).toEqual(["fixed"]);
    expect(events.at(-1)).toMatchObject({ exitReason: "completed" });
  });

  it("is off with invalidCallLimit 0", async () => {
    const { tool } = echoTool();
    const stream = mockStream([1, 2, 3, 4, 5].map((n) => ({ calls: [malformed(`m${n}`)] })).concat([{ text: "gave up" } as never]));
    const { events } = await collect(
      agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [tool] }, baseConfig({ invalidCallLimit: 0 }), undefined, stream),
    );
    expect(stream.requests).toHaveLength(6);
    expect(events.at(-1)).toMatchObject({ exitReason: "completed" });
  });
});
