/**
 * `agent.compact()` on an agent with a session store: the compaction is recorded in
 * the session as one inside a run is (its point, an audit entry), the log keeps every
 * message, a later run and `Agent.resume` start from the summary, and a session
 * another process holds or whose last run is unfinished is refused before anything.
 */
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent.js";
import { SessionBusyError } from "../../src/errors/session-busy-error.js";
import { LoopInputError } from "../../src/errors/loop-input-error.js";
import { isSummaryMessage, readSummaryMessage } from "../../src/compaction/summary-message.js";
import type { AgentEvent, AgentMessage } from "../../src/types.js";
import type { SessionStore } from "../../src/sessions/session-store.js";
import { STORE_KINDS, sampleRecord } from "../sessions/store-fixtures.js";
import { sizedModel, sizedStream } from "./sized-model.js";
import { codingHistory, orphanCalls, userText } from "./transcripts.js";

const WINDOW = 20_000;
const textOf = (message: AgentMessage | undefined) => JSON.stringify((message as { content?: unknown } | undefined)?.content ?? "");

describe.each(STORE_KINDS)("agent.compact() with a session store ($name store)", (kind) => {
  it("records the compaction in the session; the log keeps everything; the next run and a resume start from the summary", async () => {
    const location = kind.freshLocation();
    const store = await kind.open(location);
    const history = codingHistory(10, 400);
    const stream = sizedStream(WINDOW, [{ text: "first answer" }, { text: "after compacting" }, { text: "after resuming" }]);
    const agent = new Agent({ sessionStore: store, sessionId: "s1", initialState: { model: sizedModel(WINDOW), messages: history }, streamFn: stream, compaction: { keepRecentTokens: 500 } });
    await agent.prompt("go on");
    const before = await store.load("s1");
    expect(before?.messages).toHaveLength(history.length + 2);

    const events: AgentEvent[] = [];
    agent.subscribe((event) => void events.push(event));
    const result = await agent.compact("keep the file names");
    expect(result.compacted).toBe(true);
    expect(events.map((event) => event.type)).toEqual(["compaction_start", "compaction_end"]);
    expect(JSON.stringify(stream.summaryRequests[0]!.context.messages)).toContain("keep the file names");

    const stored = (await store.load("s1"))!;
    // The log keeps every message (the replaced ones too); no summary is appended to it.
    expect(stored.messages).toEqual(before!.messages);
    expect(stored.record.compaction?.keptFrom).toBe(result.replaced);
    expect(stored.record.compaction?.summaryMessage).toEqual(agent.state.messages[0]);
    expect(stored.record.compactions).toEqual([
      { run: 1, at: expect.any(String), reason: "manual", tokensBefore: result.tokensBefore, tokensAfter: result.tokensAfter, keptFrom: result.replaced, summary: result.summary },
    ]);
    expect(stored.record.state).toBe("done");
    // Resumed right away (another store on the same location), the session is the compacted transcript.
    const peek = await kind.open(location);
    try {
      expect((await Agent.resume(peek, "s1", { streamFn: stream })).state.messages).toEqual(agent.state.messages);
    } finally {
      await peek.close();
    }

    // The next prompt sends the summary and the kept messages, not the replaced history.
    await agent.prompt("and now?");
    const sent = stream.requests.at(-1)!.context.messages as AgentMessage[];
    expect(isSummaryMessage(sent[0])).toBe(true);
    expect(sent.slice(1, -1)).toEqual(stored.messages.slice(result.replaced));
    expect(textOf(sent.at(-1))).toContain("and now?");
    expect(orphanCalls(sent)).toEqual([]);
    const afterRun = (await store.load("s1"))!;
    expect(afterRun.messages.slice(0, stored.messages.length)).toEqual(stored.messages);
    expect(afterRun.messages.slice(stored.messages.length).map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(afterRun.record.compaction).toEqual(stored.record.compaction);
    await store.close();

    // Another process (a new store) resumes from the summary too.
    const reopened = await kind.open(location);
    try {
      const resumed = await Agent.resume(reopened, "s1", { streamFn: stream });
      expect(resumed.state.messages).toEqual(agent.state.messages);
      await resumed.prompt("once more");
      const resent = stream.requests.at(-1)!.context.messages as AgentMessage[];
      expect(isSummaryMessage(resent[0])).toBe(true);
      expect(resent.length).toBeLessThan(afterRun.messages.length);
    } finally {
      await reopened.close();
    }
  });

  it("a second manual compaction updates the summary; each gets its audit entry with its place in the log", async () => {
    const location = kind.freshLocation();
    const store = await kind.open(location);
    try {
      const stream = sizedStream(WINDOW, [{ text: "one" }, { text: "two" }]);
      const agent = new Agent({ sessionStore: store, sessionId: "s2", initialState: { model: sizedModel(WINDOW), messages: codingHistory(8, 400) }, streamFn: stream, compaction: { keepRecentTokens: 500 } });
      await agent.prompt("first");
      const first = await agent.compact();
      await agent.prompt(`second ${"x".repeat(4000)}`);
      const second = await agent.compact();
      expect(second.compacted).toBe(true);
      const stored = (await store.load("s2"))!;
      expect(stored.record.compactions?.map((entry) => [entry.reason, entry.run, entry.keptFrom])).toEqual([
        ["manual", 1, first.replaced],
        ["manual", 2, first.replaced + second.replaced - 1],
      ]);
      // The live transcript from the log is the agent's.
      const live = [stored.record.compaction!.summaryMessage, ...stored.messages.slice(stored.record.compaction!.keptFrom)];
      expect(live).toEqual(agent.state.messages);
      expect(readSummaryMessage(agent.state.messages[0]!)?.summary).toContain("SUMMARY");
    } finally {
      await store.close();
    }
  });

  it("is refused before anything while another process holds the session, before its first run, and while its last run is unfinished", async () => {
    const location = kind.freshLocation();
    const holder = await kind.open(location);
    const store = await kind.open(location);
    try {
      const stream = sizedStream(WINDOW, [{ text: "one" }]);
      const fresh = new Agent({ sessionStore: store, sessionId: "new", initialState: { model: sizedModel(WINDOW), messages: codingHistory(8, 400) }, streamFn: stream, compaction: { keepRecentTokens: 500 } });
      await expect(fresh.compact()).rejects.toThrow(/has no run stored yet/);

      const agent = new Agent({ sessionStore: store, sessionId: "held", initialState: { model: sizedModel(WINDOW), messages: codingHistory(8, 400) }, streamFn: stream, compaction: { keepRecentTokens: 500 } });
      await agent.prompt("go");
      const saved = (await store.load("held"))!;
      const lease = await holder.acquire("held");
      const events: AgentEvent[] = [];
      agent.subscribe((event) => void events.push(event));
      await expect(agent.compact()).rejects.toBeInstanceOf(SessionBusyError);
      await lease.release();
      expect(events).toEqual([]);
      expect(stream.summaryRequests).toHaveLength(0);
      expect(await store.load("held")).toEqual(saved);

      // A session whose last run did not end (it waits for approval, or its process died).
      await store.save("open", { record: sampleRecord("open", { state: "awaiting approval", snapshot: { status: "active", context: {} } }), firstIndex: 0, messages: [userText("hi")] });
      const unfinished = new Agent({ sessionStore: store, sessionId: "open", initialState: { model: sizedModel(WINDOW), messages: codingHistory(8, 400) }, streamFn: stream, compaction: { keepRecentTokens: 500 } });
      const refusal = unfinished.compact();
      await expect(refusal).rejects.toBeInstanceOf(LoopInputError);
      await expect(refusal).rejects.toThrow(/has an unfinished run \(state: awaiting approval\)/);
    } finally {
      await store.close();
      await holder.close();
    }
  });
});

describe.each(STORE_KINDS)("compactions between two saves ($name store)", (kind) => {
  it("each compaction of a run gets its audit entry, even when several happen while one save is under way; the second keeps its place in the log", async () => {
    const store = await kind.open(kind.freshLocation());
    // Saves wait until the run has ended, so every compaction of the run happens between two saves.
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const gated = new Proxy(store, {
      get(target, property) {
        if (property === "save") return async (...args: Parameters<SessionStore["save"]>) => gate.then(() => target.save(...args));
        const value = Reflect.get(target, property, target) as unknown;
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    try {
      const window = 4_000;
      const stream = sizedStream(window, [{ text: "one" }, { text: "two" }, { text: "three" }, { text: "four" }]);
      const agent = new Agent({
        sessionStore: gated,
        sessionId: "many",
        initialState: { model: sizedModel(window), messages: codingHistory(6, 400) },
        streamFn: stream,
        compaction: { keepRecentTokens: 300, reserveTokens: 500 },
        followUpMode: "one-at-a-time",
      });
      const compactions: Extract<AgentEvent, { type: "compaction_end" }>[] = [];
      agent.subscribe((event) => {
        if (event.type === "compaction_end" && event.compacted) compactions.push(event);
        if (event.type === "agent_end") release();
      });
      for (const index of [1, 2, 3]) agent.followUp(userText(`follow-up ${index}: ${"y".repeat(6_000)}`));
      await agent.prompt(`start: ${"x".repeat(6_000)}`);
      expect(compactions.length).toBeGreaterThanOrEqual(2);
      const stored = (await store.load("many"))!;
      expect(stored.record.compactions?.map((entry) => [entry.reason, entry.tokensBefore, entry.tokensAfter, entry.summary])).toEqual(
        compactions.map((event) => [event.reason, event.tokensBefore, event.tokensAfter, event.summary]),
      );
      const keptFrom = stored.record.compactions!.map((entry) => entry.keptFrom);
      expect(keptFrom).toEqual([...keptFrom].sort((a, b) => a - b));
      expect(stored.record.compaction?.keptFrom).toBe(keptFrom.at(-1));
      // The log holds every message once, in order, and the live transcript it gives is the agent's.
      const texts = stored.messages.filter((message) => message.role === "user").map((message) => textOf(message).slice(0, 40));
      expect(texts.filter((line) => /start:|follow-up/.test(line))).toHaveLength(4);
      expect(stored.messages.filter((message) => message.role === "assistant").map(textOf)).toEqual(expect.arrayContaining([expect.stringContaining("four")]));
      expect([stored.record.compaction!.summaryMessage, ...stored.messages.slice(stored.record.compaction!.keptFrom)]).toEqual(agent.state.messages);
    } finally {
      release();
      await store.close();
    }
  });
});
