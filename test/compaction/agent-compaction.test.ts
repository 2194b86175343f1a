import { describe, expect, it } from "vitest";
import { Agent, AgentBusyError } from "../../src/index.js";
import type { AgentEvent, AgentMessage } from "../../src/types.js";
import { isSummaryMessage, readSummaryMessage } from "../../src/compaction/summary-message.js";
import { sizedModel, sizedStream } from "./sized-model.js";
import { codingHistory, orphanCalls } from "./transcripts.js";

describe("Agent and compaction", () => {
  it("the agent's transcript follows a compaction inside a run, and the next run starts from it", async () => {
    const window = 3000;
    const stream = sizedStream(window, [{ text: "first" }, { text: "second" }]);
    const agent = new Agent({
      initialState: { model: sizedModel(window), messages: codingHistory(12, 300) },
      streamFn: stream,
      compaction: { reserveTokens: 600, keepRecentTokens: 700 },
    });
    const events: AgentEvent[] = [];
    agent.subscribe((event) => void events.push(event));
    await agent.prompt("what next?");
    expect(events.some((event) => event.type === "compaction_end" && event.compacted)).toBe(true);
    const messages = agent.state.messages;
    expect(isSummaryMessage(messages[0])).toBe(true);
    expect(messages.at(-1)).toMatchObject({ role: "assistant", content: [{ type: "text", text: "first" }] });
    expect(orphanCalls(messages)).toEqual([]);
    // What the agent holds is what the loop sent (plus the answer).
    expect(stream.requests[0]!.context.messages).toEqual(messages.slice(0, -1));

    await agent.prompt("and then?");
    expect(stream.requests[1]!.context.messages[0]).toEqual(messages[0]);
    expect(stream.requests[1]!.tokens).toBeLessThan(window);
  });

  it("agent.compact(instructions) compacts by hand with the agent's model, passing the instructions on", async () => {
    const stream = sizedStream(20_000, []);
    const agent = new Agent({ initialState: { model: sizedModel(20_000), messages: codingHistory(10, 400) }, streamFn: stream, compaction: { keepRecentTokens: 500 } });
    const events: AgentEvent[] = [];
    agent.subscribe((event) => void events.push(event));
    const before = agent.state.messages.length;
    const result = await agent.compact("keep the file names");
    expect(result.compacted).toBe(true);
    expect(events.map((event) => event.type)).toEqual(["compaction_start", "compaction_end"]);
    expect(events[0]).toMatchObject({ reason: "manual" });
    expect(agent.state.messages.length).toBe(before - result.replaced + 1);
    expect(readSummaryMessage(agent.state.messages[0] as AgentMessage)?.files.modified).toContain("src/out-1.ts");
    expect(stream.summaryRequests.length).toBeGreaterThan(0);
    expect(JSON.stringify(stream.summaryRequests[0]!.context.messages)).toContain("keep the file names");
  });

  it("agent.compact() applies no summary that would make the transcript larger: a short transcript stays as it was", async () => {
    const messages: AgentMessage[] = [
      { role: "user", content: "hi", timestamp: 1 },
      { role: "assistant", content: [{ type: "text", text: "hello" }], api: "x", provider: "x", model: "x", usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }, stopReason: "stop", timestamp: 2 },
      { role: "user", content: "and now?", timestamp: 3 },
      { role: "assistant", content: [{ type: "text", text: "now this" }], api: "x", provider: "x", model: "x", usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }, stopReason: "stop", timestamp: 4 },
    ];
    const agent = new Agent({
      initialState: { model: sizedModel(20_000), messages },
      streamFn: sizedStream(20_000, []),
      compaction: { keepRecentTokens: 1, summarize: async () => "a summary far longer than the two short exchanges it would replace ".repeat(20) },
    });
    const events: AgentEvent[] = [];
    agent.subscribe((event) => void events.push(event));
    const result = await agent.compact();
    expect(result).toMatchObject({ compacted: false, replaced: 0 });
    expect(result.tokensAfter).toBe(result.tokensBefore);
    expect(agent.state.messages).toEqual(messages);
    expect(events.at(-1)).toMatchObject({ type: "compaction_end", compacted: false });
    expect(events.at(-1)).not.toHaveProperty("summaryMessage");
  });

  it("agent.compact() is refused while a run is active, and a failing summarizer leaves the transcript as it was", async () => {
    const agent = new Agent({
      initialState: { model: sizedModel(20_000), messages: codingHistory(10, 400) },
      streamFn: sizedStream(20_000, [{ text: "x" }]),
      compaction: { keepRecentTokens: 500, summarize: async () => Promise.reject(new Error("no summaries today")) },
    });
    const run = agent.prompt("go");
    await expect(agent.compact()).rejects.toBeInstanceOf(AgentBusyError);
    await run;
    const before = agent.state.messages.slice();
    await expect(agent.compact()).rejects.toThrow("no summaries today");
    expect(agent.state.messages).toEqual(before);
  });
});
