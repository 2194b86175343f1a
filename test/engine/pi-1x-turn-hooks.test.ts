/**
 * pi-agent-core 1.x's turn hooks, each a state of the chart: `prepareRequest` before
 * every request, `prepareNextTurn`'s `messages`, and `finishTurn` before `turn_end`.
 */
import { describe, expect, it } from "vitest";
import { agentLoop } from "../../src/index.js";
import type { AgentEvent, AgentLoopConfig, AgentMessage, Model, PrepareRequestContext } from "../../src/types.js";
import { baseConfig, collect, mockStream, testModel, user, type MockResponse } from "../helpers/mock-stream.js";
import { echoTool } from "../helpers/tools.js";

const otherModel: Model = { ...testModel, id: "mock-2", name: "Mock two" };

async function run(responses: MockResponse[], config: Partial<AgentLoopConfig>, prompts: AgentMessage[] = [user("go")]) {
  const { tool, calls } = echoTool();
  const stream = mockStream(responses);
  const { events, result } = await collect(
    agentLoop(prompts, { systemPrompt: "sys", messages: [], tools: [tool] }, baseConfig(config), undefined, stream),
  );
  return { events, result, stream, toolCalls: calls, end: events.at(-1) as Extract<AgentEvent, { type: "agent_end" }> };
}

const echoCall = (text: string) => ({ name: "echo", arguments: { text } });
const texts = (messages: unknown[]) =>
  messages.map((m) => {
    const content = (m as { content: unknown }).content;
    return typeof content === "string" ? content : JSON.stringify(content);
  });

describe("prepareRequest (pi-agent-core 1.x)", () => {
  it("is asked before every request, the first included, after pending messages were appended", async () => {
    const seen: { messages: string[]; model: string; thinkingLevel: string; signal: boolean }[] = [];
    let steered = false;
    const { stream, end } = await run([{ calls: [echoCall("a")] }, { text: "done" }], {
      getSteeringMessages: async () => (steered ? [] : ((steered = true), [user("steer")])),
      prepareRequest: (request: PrepareRequestContext, signal?: AbortSignal) => {
        seen.push({
          messages: texts(request.context.messages),
          model: request.model.id,
          thinkingLevel: request.thinkingLevel,
          signal: signal instanceof AbortSignal || signal === undefined,
        });
      },
    });
    expect(end.exitReason).toBe("completed");
    expect(stream.requests).toHaveLength(2);
    expect(seen).toHaveLength(2);
    expect(seen[0]?.messages).toEqual(["go", "steer"]);
    expect(seen[0]).toMatchObject({ model: "mock-1", thinkingLevel: "off" });
    expect(seen[1]?.messages.at(-1)).toContain("echo: a");
  });

  it("replaces model and thinking level for this request and every later one", async () => {
    const models: string[] = [];
    const { stream } = await run([{ calls: [echoCall("a")] }, { text: "done" }], {
      prepareRequest: ({ model }) => {
        models.push(model.id);
        return models.length === 1 ? { model: otherModel, thinkingLevel: "high" } : undefined;
      },
    });
    expect(models).toEqual(["mock-1", "mock-2"]);
    expect(stream.requests.map((request) => request.model.id)).toEqual(["mock-2", "mock-2"]);
    expect(stream.requests.map((request) => request.options?.reasoning)).toEqual(["high", "high"]);
  });

  it("replaces the transcript (and tools) the request is made with", async () => {
    const { stream } = await run([{ text: "done" }], {
      prepareRequest: ({ context }) => ({ context: { ...context, systemPrompt: "pruned", messages: [user("only this")], tools: [] } }),
    });
    expect(stream.requests[0]?.context.systemPrompt).toBe("pruned");
    expect(texts(stream.requests[0]?.context.messages ?? [])).toEqual(["only this"]);
    expect(stream.requests[0]?.context.tools ?? []).toEqual([]);
  });

  it("a throw ends the turn with a failed response and the run with exit reason error naming the hook; no request is made", async () => {
    const { stream, end, events } = await run([{ text: "never" }], {
      prepareRequest: () => {
        throw new Error("no budget left");
      },
    });
    expect(stream.requests).toHaveLength(0);
    expect(end).toMatchObject({ exitReason: "error" });
    expect(end.errorMessage).toContain("prepareRequest");
    expect(end.errorMessage).toContain("no budget left");
    expect(events.filter((e) => e.type === "turn_start")).toHaveLength(1);
    expect(events.filter((e) => e.type === "turn_end")).toHaveLength(1);
  });
});

describe("prepareNextTurn's messages (pi-agent-core 1.x)", () => {
  it("appends them before the next request, each with message_start and message_end", async () => {
    const { stream, result, events } = await run([{ calls: [echoCall("a")] }, { text: "done" }], {
      prepareNextTurn: () => ({ messages: [user("note from prepareNextTurn")] }),
    });
    expect(texts(stream.requests[1]?.context.messages ?? []).at(-1)).toBe("note from prepareNextTurn");
    expect(texts(result)).toContain("note from prepareNextTurn");
    const ends = events.filter((e) => e.type === "message_end").map((e) => texts([e.message])[0]);
    expect(ends).toContain("note from prepareNextTurn");
    const secondTurn = events.findIndex((e, index) => e.type === "turn_start" && index > 0);
    const injected = events.findIndex((e) => e.type === "message_start" && texts([e.message])[0] === "note from prepareNextTurn");
    expect(injected).toBeGreaterThan(secondTurn);
  });
});

describe("finishTurn (pi-agent-core 1.x)", () => {
  it("sees the turn's results before turn_end", async () => {
    const order: string[] = [];
    const { tool } = echoTool();
    const stream = mockStream([{ calls: [echoCall("a")] }, { text: "done" }]);
    const config = baseConfig({
      finishTurn: (turn) => {
        order.push(`finishTurn ${turn.toolResults.length} results, ${turn.newMessages.length} new`);
      },
    });
    const { events } = await collect(agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [tool] }, config, undefined, stream));
    const turnEnds = events.filter((e) => e.type === "turn_end").length;
    expect(turnEnds).toBe(2);
    expect(order).toEqual(["finishTurn 1 results, 3 new", "finishTurn 0 results, 4 new"]);
  });

  it("is called before turn_end is emitted", async () => {
    const seenAtCall: number[] = [];
    let turnEnds = 0;
    const { tool } = echoTool();
    const stream = mockStream([{ text: "done" }]);
    const agentStream = agentLoop(
      [user("go")],
      { systemPrompt: "", messages: [], tools: [tool] },
      baseConfig({ finishTurn: () => void seenAtCall.push(turnEnds) }),
      undefined,
      stream,
    );
    for await (const event of agentStream) if (event.type === "turn_end") turnEnds += 1;
    expect(seenAtCall).toEqual([0]);
  });

  it('{ action: "end" } ends the run (exit reason stopped) without polling steering, follow-up or shouldStopAfterTurn', async () => {
    const polled: string[] = [];
    const { stream, end, events, toolCalls } = await run([{ calls: [echoCall("a")] }, { text: "never" }], {
      finishTurn: () => ({ action: "end" }),
      getSteeringMessages: async () => (polled.push("steering"), []),
      getFollowUpMessages: async () => (polled.push("followUp"), []),
      shouldStopAfterTurn: () => (polled.push("shouldStop"), false),
    });
    expect(toolCalls).toHaveLength(1);
    expect(stream.requests).toHaveLength(1);
    expect(end.exitReason).toBe("stopped");
    expect(polled).toEqual(["steering"]); // the poll before the first request only
    expect(events.filter((e) => e.type === "turn_end")).toHaveLength(1);
  });

  it('{ action: "continue" } after an answer without tool calls asks once more with the current context', async () => {
    let turn = 0;
    const { stream, end } = await run([{ text: "first" }, { text: "second" }, { text: "never" }], {
      finishTurn: () => (++turn === 1 ? { action: "continue" } : undefined),
    });
    expect(stream.requests).toHaveLength(2);
    expect(texts(stream.requests[1]?.context.messages ?? [])).toEqual(["go", JSON.stringify([{ type: "text", text: "first" }])]);
    expect(end.exitReason).toBe("completed");
  });

  it('{ action: "continue" } adds no request when tool results already lead to one', async () => {
    let turn = 0;
    const { stream, end } = await run([{ calls: [echoCall("a")] }, { text: "done" }, { text: "never" }], {
      finishTurn: () => (++turn === 1 ? { action: "continue" } : undefined),
    });
    expect(stream.requests).toHaveLength(2);
    expect(end.exitReason).toBe("completed");
  });

  it('{ action: "continue" } adds no request when a follow-up message leads to one', async () => {
    let turn = 0;
    let followed = false;
    const { stream } = await run([{ text: "first" }, { text: "second" }, { text: "never" }], {
      finishTurn: () => (++turn === 1 ? { action: "continue" } : undefined),
      getFollowUpMessages: async () => (followed ? [] : ((followed = true), [user("and then?")])),
    });
    expect(stream.requests).toHaveLength(2);
  });

  it('{ action: "continue" } still respects maxTurns', async () => {
    const { stream, end } = await run([{ text: "first" }, { text: "never" }], {
      finishTurn: () => ({ action: "continue" }),
      maxTurns: 1,
    });
    expect(stream.requests).toHaveLength(1);
    expect(end.exitReason).toBe("maxTurns");
  });

  it("is asked after a failed response too, but the failure stays a hard exit", async () => {
    const stops: string[] = [];
    const { end, stream } = await run([{ stopReason: "error", errorMessage: "provider down" }, { text: "never" }], {
      finishTurn: (turn) => {
        stops.push(turn.message.stopReason);
        return { action: "continue" };
      },
    });
    expect(stops).toEqual(["error"]);
    expect(stream.requests).toHaveLength(1);
    expect(end).toMatchObject({ exitReason: "error", errorMessage: "provider down" });
  });

  it("a throw or an unreadable decision ends the run with exit reason error naming the hook", async () => {
    const thrown = await run([{ text: "x" }], {
      finishTurn: () => {
        throw new Error("bookkeeping failed");
      },
    });
    expect(thrown.end.exitReason).toBe("error");
    expect(thrown.end.errorMessage).toContain("finishTurn threw: bookkeeping failed");
    expect(thrown.events.filter((e) => e.type === "turn_end")).toHaveLength(1);
    const odd = await run([{ text: "x" }], { finishTurn: () => ({ action: "stop" }) as never });
    expect(odd.end.exitReason).toBe("error");
    expect(odd.end.errorMessage).toContain('expected undefined, { action: "end" } or { action: "continue" }');
  });

  it("runs before shouldStopAfterTurn, which still ends the run after turn_end", async () => {
    const order: string[] = [];
    const { end } = await run([{ calls: [echoCall("a")] }, { text: "never" }], {
      finishTurn: () => void order.push("finishTurn"),
      shouldStopAfterTurn: () => (order.push("shouldStopAfterTurn"), true),
    });
    expect(order).toEqual(["finishTurn", "shouldStopAfterTurn"]);
    expect(end.exitReason).toBe("stopped");
  });
});
