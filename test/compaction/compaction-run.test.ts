import { describe, expect, it } from "vitest";
import { agentLoop, agentLoopContinue, LoopInputError } from "../../src/index.js";
import type { AgentEvent, AgentMessage, AgentTool } from "../../src/types.js";
import { isSummaryMessage } from "../../src/compaction/summary-message.js";
import { summaryRequestTokens, type SummaryRequest } from "../../src/compaction/summarize-history.js";
import { baseConfig, collect, user } from "../helpers/mock-stream.js";
import { Type } from "typebox";
import { sizedModel, sizedStream, type SizedResponse } from "./sized-model.js";
import { codingHistory, orphanCalls } from "./transcripts.js";

/** A `read` tool answering with `chars` characters of file text. */
function readTool(chars: number): AgentTool {
  return {
    name: "read",
    label: "Read",
    description: "Reads a file",
    parameters: Type.Object({ path: Type.String() }),
    async execute(_id, args) {
      const path = (args as { path: string }).path;
      return { content: [{ type: "text", text: `${path}: ${"x".repeat(chars)}` }], details: {} };
    },
  };
}

const readCall = (turn: number): SizedResponse => ({ calls: [{ id: `call_${turn}`, name: "read", arguments: { path: `src/f${turn}.ts` } }] });

function recordingSummarizer() {
  const requests: SummaryRequest[] = [];
  return {
    requests,
    summarize: async (request: SummaryRequest) => {
      requests.push(request);
      return `SUMMARY ${requests.length}: goal, decisions, open problems`;
    },
  };
}

const ofType = <T extends AgentEvent["type"]>(events: AgentEvent[], type: T) => events.filter((event): event is Extract<AgentEvent, { type: T }> => event.type === type);

describe("compaction in the loop", () => {
  it("a long run with a small window compacts before a request: the next request is smaller, holds the summary and the last turns verbatim, and no orphan call", async () => {
    const window = 3000;
    const script = [...Array.from({ length: 10 }, (_, turn) => readCall(turn + 1)), { text: "all read" }];
    const stream = sizedStream(window, script);
    const { summarize, requests: summaries } = recordingSummarizer();
    const config = baseConfig({ model: sizedModel(window), compaction: { reserveTokens: 600, keepRecentTokens: 700, summarize } });
    const { events } = await collect(agentLoop([user("read every file")], { systemPrompt: "be brief", messages: [], tools: [readTool(1200)] }, config, undefined, stream));

    expect(events.at(-1)).toMatchObject({ type: "agent_end", exitReason: "completed" });
    const starts = ofType(events, "compaction_start");
    expect(starts.length).toBeGreaterThan(0);
    expect(starts.every((event) => event.reason === "threshold")).toBe(true);
    // No request was refused: compaction came first every time.
    expect(stream.requests.every((request) => request.tokens <= window)).toBe(true);
    for (const request of stream.requests) expect(orphanCalls(request.context.messages as AgentMessage[])).toEqual([]);

    // The request right after the first compaction, and the one before it.
    const ends = ofType(events, "compaction_end");
    const first = ends[0]!;
    expect(first.compacted).toBe(true);
    expect(first.tokensAfter).toBeLessThan(first.tokensBefore);
    const after = stream.requests.findIndex((request) => isSummaryMessage(request.context.messages[0] as AgentMessage));
    expect(after).toBeGreaterThan(0);
    const before = stream.requests[after - 1]!;
    const compacted = stream.requests[after]!;
    expect(compacted.tokens).toBeLessThan(before.tokens + 400);
    expect(JSON.stringify(compacted.context.messages[0])).toMatch(/SUMMARY \d+: goal/);
    expect(JSON.stringify(compacted.context.messages[0])).toContain("src/f1.ts");
    // The last turns verbatim: every message after the summary was in the transcript before, in order.
    const kept = compacted.context.messages.slice(1);
    const previous = before.context.messages;
    const lastCall = kept.findIndex((message) => message.role === "assistant");
    expect(lastCall).toBeGreaterThanOrEqual(0);
    const at = previous.findIndex((message) => JSON.stringify(message) === JSON.stringify(kept[0]));
    expect(at).toBeGreaterThan(0);
    expect(previous.slice(at)).toEqual(kept.slice(0, previous.length - at));
    // Summaries never exceed the window.
    for (const request of summaries) expect(summaryRequestTokens(request)).toBeLessThanOrEqual(window);
  });

  it("by default the run's own model writes the summary, with no tools and the summary's maxTokens", async () => {
    const window = 3000;
    const stream = sizedStream(window, [...Array.from({ length: 10 }, (_, turn) => readCall(turn + 1)), { text: "done" }]);
    const config = baseConfig({ model: sizedModel(window), compaction: { reserveTokens: 600, keepRecentTokens: 700 } });
    const { events } = await collect(agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [readTool(1200)] }, config, undefined, stream));
    expect(events.at(-1)).toMatchObject({ exitReason: "completed" });
    expect(stream.summaryRequests.length).toBeGreaterThan(0);
    for (const request of stream.summaryRequests) {
      expect(request.context.tools).toBeUndefined();
      expect(request.options?.maxTokens).toBe(480);
      expect(request.tokens + 480).toBeLessThanOrEqual(window);
    }
    expect(ofType(events, "compaction_end")[0]?.summary).toMatch(/^SUMMARY/);
  });

  it("a request refused as a context overflow is compacted and retried once, and the run completes", async () => {
    const history = codingHistory(8, 400);
    const stream = sizedStream(100_000, [{ errorMessage: "HTTP 400: Your messages are too long. (context_length_exceeded)" }, { text: "fits now" }]);
    const { summarize } = recordingSummarizer();
    const config = baseConfig({ model: sizedModel(100_000), compaction: { keepRecentTokens: 300, summarize } });
    const { events, result } = await collect(agentLoopContinue({ systemPrompt: "", messages: [...history, user("and now?")] }, config, undefined, stream));
    expect(events.at(-1)).toMatchObject({ type: "agent_end", exitReason: "completed" });
    expect(ofType(events, "compaction_start")).toMatchObject([{ reason: "overflow", discarded: { stopReason: "error" } }]);
    expect(stream.requests).toHaveLength(2);
    expect(stream.requests[1]!.tokens).toBeLessThan(stream.requests[0]!.tokens);
    expect(isSummaryMessage(stream.requests[1]!.context.messages[0] as AgentMessage)).toBe(true);
    // The refused response is not part of the run.
    expect(result.map((message) => (message as { stopReason?: string }).stopReason)).toEqual(["stop"]);
    expect(orphanCalls(stream.requests[1]!.context.messages as AgentMessage[])).toEqual([]);
  });

  it("a second overflow after compacting ends the run error, naming the overflow", async () => {
    const history = codingHistory(8, 400);
    const overflow = { errorMessage: "HTTP 400: prompt is too long: 213462 tokens > 200000 maximum" };
    const stream = sizedStream(100_000, [overflow, overflow, { text: "never asked" }]);
    const { summarize } = recordingSummarizer();
    const config = baseConfig({ model: sizedModel(100_000), compaction: { keepRecentTokens: 300, summarize } });
    const { events } = await collect(agentLoopContinue({ systemPrompt: "", messages: [...history, user("and now?")] }, config, undefined, stream));
    expect(stream.requests).toHaveLength(2);
    const end = events.at(-1) as Extract<AgentEvent, { type: "agent_end" }>;
    expect(end.exitReason).toBe("error");
    expect(end.errorMessage).toMatch(/^context overflow: the request still did not fit the model's context window after compacting/);
    expect(end.errorMessage).toContain("prompt is too long");
    expect(ofType(events, "compaction_start")).toHaveLength(1);
  });

  it("a length stop far below the output allowed is compacted and retried; the cut-off response is dropped", async () => {
    const history = codingHistory(8, 400);
    // The provider counts the request at 99,000 tokens: with the one token it wrote, the window is full.
    const stream = sizedStream(100_000, [{ text: "I", stopReason: "length", outputTokens: 1, inputTokens: 99_000 }, { text: "a whole answer" }]);
    const { summarize } = recordingSummarizer();
    const config = baseConfig({ model: sizedModel(100_000, 4000), compaction: { keepRecentTokens: 300, summarize } });
    const { events, result } = await collect(agentLoopContinue({ systemPrompt: "", messages: [...history, user("and now?")] }, config, undefined, stream));
    expect(events.at(-1)).toMatchObject({ exitReason: "completed" });
    expect(ofType(events, "compaction_start")).toMatchObject([{ reason: "length" }]);
    expect(stream.requests).toHaveLength(2);
    expect(result).toHaveLength(1);
    expect(result[0]).toMatchObject({ role: "assistant", stopReason: "stop" });
    // The dropped response's message_start is closed by compaction_start, never by a message_end.
    const types = events.map((event) => event.type);
    expect(types.filter((type) => type === "message_end")).toHaveLength(1);
  });

  it("a length stop on a small context is an ordinary one, however few its tokens", async () => {
    const stream = sizedStream(100_000, [{ text: "I", stopReason: "length", outputTokens: 1 }]);
    const config = baseConfig({ model: sizedModel(100_000, 4000), compaction: { keepRecentTokens: 300, summarize: recordingSummarizer().summarize } });
    const { events } = await collect(agentLoop([user("go")], { systemPrompt: "", messages: codingHistory(4, 100) }, config, undefined, stream));
    expect(ofType(events, "compaction_start")).toHaveLength(0);
    expect(stream.requests).toHaveLength(1);
  });

  it("a length stop near the output allowed is an ordinary length stop, not an overflow", async () => {
    const stream = sizedStream(100_000, [{ text: "long…", stopReason: "length", outputTokens: 3900, inputTokens: 96_000 }]);
    const config = baseConfig({ model: sizedModel(100_000, 4000), compaction: { keepRecentTokens: 300, summarize: recordingSummarizer().summarize } });
    const { events } = await collect(agentLoop([user("go")], { systemPrompt: "", messages: codingHistory(4, 100) }, config, undefined, stream));
    expect(ofType(events, "compaction_start")).toHaveLength(0);
    expect(events.at(-1)).toMatchObject({ exitReason: "completed" });
  });

  it("without compaction config an overflow ends the run error as before, with no compaction event", async () => {
    const stream = sizedStream(100_000, [{ errorMessage: "HTTP 400: prompt is too long: 3 tokens > 2 maximum" }]);
    const { events } = await collect(agentLoop([user("go")], { systemPrompt: "", messages: codingHistory(4, 100) }, baseConfig({ model: sizedModel(100_000) }), undefined, stream));
    expect(events.some((event) => event.type.startsWith("compaction"))).toBe(false);
    expect(events.at(-1)).toMatchObject({ exitReason: "error", errorMessage: "HTTP 400: prompt is too long: 3 tokens > 2 maximum" });
  });

  it("a summarizer that fails ends the run error naming it; an abort during compaction ends it aborted", async () => {
    const failing = baseConfig({ model: sizedModel(100_000), compaction: { keepRecentTokens: 300, summarize: async () => Promise.reject(new Error("summary service down")) } });
    const overflow = { errorMessage: "HTTP 400: prompt is too long" };
    const failed = await collect(agentLoopContinue({ systemPrompt: "", messages: [...codingHistory(6, 300), user("next")] }, failing, undefined, sizedStream(100_000, [overflow])));
    expect(failed.events.at(-1)).toMatchObject({ exitReason: "error", errorMessage: "the compaction summarizer threw: summary service down" });

    const controller = new AbortController();
    const hanging = baseConfig({
      model: sizedModel(100_000),
      compaction: {
        keepRecentTokens: 300,
        summarize: (_request, signal) =>
          new Promise<string>((_, reject) => {
            signal?.addEventListener("abort", () => reject(new Error("aborted")), { once: true });
            controller.abort();
          }),
      },
    });
    const aborted = await collect(agentLoopContinue({ systemPrompt: "", messages: [...codingHistory(6, 300), user("next")] }, hanging, controller.signal, sizedStream(100_000, [overflow])));
    expect(aborted.events.at(-1)).toMatchObject({ exitReason: "aborted" });
    const types = aborted.events.map((event) => event.type);
    expect(types.filter((type) => type === "turn_start")).toHaveLength(types.filter((type) => type === "turn_end").length);
  });

  it("rejects a compaction config it cannot use, naming the fix", () => {
    const stream = sizedStream(1000, []);
    const run = (compaction: unknown) => () => agentLoop([user("go")], { systemPrompt: "", messages: [] }, baseConfig({ model: sizedModel(1000), compaction: compaction as never }), undefined, stream);
    expect(run({ reserveTokens: -1 })).toThrow(LoopInputError);
    expect(run({ reserveTokens: 1000 })).toThrow(/must be smaller than the context window \(1000 tokens\)/);
    expect(run({ summarize: "yes" })).toThrow(/compaction.summarize must be a function/);
    expect(run("on")).toThrow(/config.compaction must be an object/);
  });
});
