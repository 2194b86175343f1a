import { describe, expect, it } from "vitest";
import { agentLoop, DEFAULT_WRAP_UP_PROMPT, WRAP_UP_REFUSAL_MESSAGE } from "../../src/index.js";
import type { AgentEvent, AgentMessage } from "../../src/types.js";
import { baseConfig, collect, mockStream, trace, user } from "../helpers/mock-stream.js";
import { echoTool } from "../helpers/tools.js";

const call = (id: string) => ({ id, name: "echo", arguments: { text: id } });
const roles = (messages: AgentMessage[]) => messages.map((message) => (message as { role: string }).role);
const contentOf = (message: AgentMessage | undefined) => (message as { content?: unknown } | undefined)?.content;

describe("the turn cap with a wrap-up answer", () => {
  it("makes one last request without tools and the wrap-up prompt, then ends maxTurns with the answer", async () => {
    const { tool, calls } = echoTool();
    const stream = mockStream([{ calls: [call("a")] }, { calls: [call("b")] }, { text: "Here is what I found." }, { text: "never asked" }]);
    const { events, result } = await collect(
      agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [tool] }, baseConfig({ maxTurns: 2, wrapUp: true }), undefined, stream),
    );
    expect(calls.map((entry) => entry.id)).toEqual(["a", "b"]);
    expect(stream.requests).toHaveLength(3);
    expect(stream.requests.map((request) => request.context.tools?.length ?? 0)).toEqual([1, 1, 0]);
    const last = stream.requests[2]?.context.messages.at(-1);
    expect(last).toMatchObject({ role: "user", content: DEFAULT_WRAP_UP_PROMPT });
    expect(events.at(-1)).toMatchObject({ type: "agent_end", exitReason: "maxTurns" });
    expect(events.filter((event) => event.type === "turn_start")).toHaveLength(3);
    expect(roles(result).slice(-2)).toEqual(["user", "assistant"]);
    expect(contentOf(result.at(-1))).toEqual([{ type: "text", text: "Here is what I found." }]);
    expect(trace(events).slice(-4)).toEqual(["message_update", "message_end:assistant", "turn_end", "agent_end:maxTurns"]);
  });

  it("uses the given prompt, and refuses a call the wrap-up response makes anyway", async () => {
    const { tool, calls } = echoTool();
    const stream = mockStream([{ calls: [call("a")] }, { text: "trying anyway", calls: [call("sneaky")] }]);
    const { events, result } = await collect(
      agentLoop(
        [user("go")],
        { systemPrompt: "", messages: [], tools: [tool] },
        baseConfig({ maxTurns: 1, wrapUp: { prompt: "Summarise now." } }),
        undefined,
        stream,
      ),
    );
    expect(stream.requests[1]?.context.messages.at(-1)).toMatchObject({ role: "user", content: "Summarise now." });
    expect(calls.map((entry) => entry.id)).toEqual(["a"]);
    const refused = result.at(-1) as { role: string; isError: boolean; content: { text: string }[] };
    expect(refused).toMatchObject({ role: "toolResult", toolCallId: "sneaky", isError: true });
    expect(refused.content[0]?.text).toBe(WRAP_UP_REFUSAL_MESSAGE);
    expect(events.at(-1)).toMatchObject({ exitReason: "maxTurns" });
  });

  it("without wrapUp ends at the cap without another request", async () => {
    const { tool } = echoTool();
    const stream = mockStream([{ calls: [call("a")] }, { text: "never asked" }]);
    const { events } = await collect(agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [tool] }, baseConfig({ maxTurns: 1 }), undefined, stream));
    expect(stream.requests).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ exitReason: "maxTurns" });
  });

  it("a run that ends before the cap makes no wrap-up request", async () => {
    const stream = mockStream([{ text: "done" }]);
    const { events } = await collect(agentLoop([user("go")], { systemPrompt: "", messages: [] }, baseConfig({ maxTurns: 1, wrapUp: true }), undefined, stream));
    expect(stream.requests).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ exitReason: "completed" });
  });
});

describe("budgets", () => {
  // Every scripted response uses 15 tokens.
  it("ends the run after the batch of the response that reaches the token budget, with exit reason budget", async () => {
    const { tool, calls } = echoTool();
    const stream = mockStream([{ calls: [call("a")] }, { calls: [call("b"), call("c")] }, { text: "never asked" }]);
    const { events, result } = await collect(
      agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [tool] }, baseConfig({ budget: { tokens: 30 } }), undefined, stream),
    );
    expect(stream.requests).toHaveLength(2);
    // The crossing response's batch still ran and its results are in the transcript.
    expect(calls.map((entry) => entry.id)).toEqual(["a", "b", "c"]);
    expect(roles(result).slice(-3)).toEqual(["assistant", "toolResult", "toolResult"]);
    expect(trace(events).slice(-2)).toEqual(["turn_end", "agent_end:budget"]);
  });

  it("gives the wrap-up answer when asked, and still ends budget", async () => {
    const { tool } = echoTool();
    const stream = mockStream([{ calls: [call("a")] }, { text: "summary" }]);
    const { events } = await collect(
      agentLoop(
        [user("go")],
        { systemPrompt: "", messages: [], tools: [tool] },
        baseConfig({ budget: { tokens: 10 }, wrapUp: true, maxTurns: 5 }),
        undefined,
        stream,
      ),
    );
    expect(stream.requests).toHaveLength(2);
    expect(stream.requests[1]?.context.tools).toBeUndefined();
    expect(events.at(-1)).toMatchObject({ exitReason: "budget" });
  });

  it("sums cost from each response's usage", async () => {
    const { tool } = echoTool();
    // Each response costs $0.40: the third reaches $1.
    const stream = mockStream([{ calls: [call("a")], costUsd: 0.4 }, { calls: [call("b")], costUsd: 0.4 }, { calls: [call("c")], costUsd: 0.4 }, { text: "never" }]);
    const { events } = await collect(
      agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [tool] }, baseConfig({ budget: { costUsd: 1 } }), undefined, stream),
    );
    expect(stream.requests).toHaveLength(3);
    expect((events.at(-1) as Extract<AgentEvent, { type: "agent_end" }>).exitReason).toBe("budget");
  });

  it("a response that ends the run anyway ends it as usual", async () => {
    const stream = mockStream([{ text: "done" }]);
    const { events } = await collect(agentLoop([user("go")], { systemPrompt: "", messages: [] }, baseConfig({ budget: { tokens: 1 } }), undefined, stream));
    expect(events.at(-1)).toMatchObject({ exitReason: "completed" });
  });
});
