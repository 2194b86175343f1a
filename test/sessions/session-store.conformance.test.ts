/**
 * One conformance suite, run against both session stores: what `SessionStore`
 * promises (round trips, appends, the log-length check, listing, reopening).
 */
import { afterEach, describe, expect, it } from "vitest";
import type { SessionStore } from "../../src/sessions/session-store.js";
import { checkpointMessages, storedCheckpoint, type SessionCheckpoint } from "../../src/sessions/session-checkpoint.js";
import { transcriptOf } from "../../machines/transcript.js";
import type { AgentMessage } from "../../src/types.js";
import { sampleRecord, STORE_KINDS } from "./store-fixtures.js";

const message = (text: string): AgentMessage => ({ role: "user", content: text, timestamp: 1 });

for (const kind of STORE_KINDS) {
  describe(`the ${kind.name} session store`, () => {
    const opened: SessionStore[] = [];
    const open = async (location: string) => {
      const store = await kind.open(location);
      opened.push(store);
      return store;
    };
    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close();
    });

    it("should load nothing for a session it never saved", async () => {
      const store = await open(kind.freshLocation());
      expect(await store.load("nope")).toBeUndefined();
      expect(await store.list()).toEqual([]);
    });

    it("should give back the record, the messages in order and the started calls it saved", async () => {
      const store = await open(kind.freshLocation());
      const record = sampleRecord("s1", { snapshot: { value: "requesting", context: { nested: [1, 2, { deep: "x" }] } }, meta: { model: "scripted/demo" } });
      await store.save("s1", { record, firstIndex: 0, messages: [message("one"), message("two")] });
      await store.recordCallStart("s1", "1:1:call_a");
      await store.recordCallStart("s1", "1:1:call_b");
      expect(await store.load("s1")).toEqual({ record, messages: [message("one"), message("two")], startedCalls: ["1:1:call_a", "1:1:call_b"] });
    });

    it("should append the message log and replace the record on each save", async () => {
      const store = await open(kind.freshLocation());
      await store.save("s1", { record: sampleRecord("s1", { turns: 1 }), firstIndex: 0, messages: [message("one")] });
      await store.save("s1", { record: sampleRecord("s1", { turns: 2 }), firstIndex: 1, messages: [] });
      await store.save("s1", { record: sampleRecord("s1", { turns: 3, state: "done" }), firstIndex: 1, messages: [message("two"), message("three")] });
      const loaded = await store.load("s1");
      expect(loaded?.record.turns).toBe(3);
      expect(loaded?.record.state).toBe("done");
      expect(loaded?.messages).toEqual([message("one"), message("two"), message("three")]);
    });

    it("should refuse a save that does not append where the log ends, changing nothing", async () => {
      const store = await open(kind.freshLocation());
      await store.save("s1", { record: sampleRecord("s1", { turns: 1 }), firstIndex: 0, messages: [message("one")] });
      await expect(store.save("s1", { record: sampleRecord("s1", { turns: 9 }), firstIndex: 0, messages: [message("again")] })).rejects.toThrow(/appends from message 0 but the log holds 1/);
      const loaded = await store.load("s1");
      expect(loaded?.record.turns).toBe(1);
      expect(loaded?.messages).toEqual([message("one")]);
    });

    it("should keep sessions apart and list them most recently active first", async () => {
      const store = await open(kind.freshLocation());
      await store.save("old", { record: sampleRecord("old", { updatedAt: "2026-01-01T00:00:00.000Z", turns: 4, state: "done" }), firstIndex: 0, messages: [message("a")] });
      await store.save("new", { record: sampleRecord("new", { updatedAt: "2026-02-01T00:00:00.000Z", turns: 1 }), firstIndex: 0, messages: [] });
      expect(await store.list()).toEqual([
        { id: "new", state: "running", turns: 1, updatedAt: "2026-02-01T00:00:00.000Z" },
        { id: "old", state: "done", turns: 4, updatedAt: "2026-01-01T00:00:00.000Z" },
      ]);
      expect((await store.load("new"))?.messages).toEqual([]);
    });

    it("should read what another store instance on the same location wrote", async () => {
      const location = kind.freshLocation();
      const writer = await open(location);
      await writer.save("s1", { record: sampleRecord("s1"), firstIndex: 0, messages: [message("one")] });
      await writer.close();
      const reader = await open(location);
      await reader.save("s1", { record: sampleRecord("s1", { turns: 5 }), firstIndex: 1, messages: [message("two")] });
      const loaded = await (await open(location)).load("s1");
      expect(loaded?.record.turns).toBe(5);
      expect(loaded?.messages).toEqual([message("one"), message("two")]);
    });

    it("should append checkpoints after the messages and give them back with their transcripts, as references into the log where they are a prefix of it", async () => {
      const store = await open(kind.freshLocation());
      const log = [message("one"), message("two"), message("three")];
      const checkpoint = (messages: AgentMessage[], turn: number): SessionCheckpoint => ({
        kind: "turn",
        turn,
        run: 1,
        sessionTurns: turn,
        at: "2026-01-01T00:00:00.000Z",
        state: "running",
        agent: sampleRecord("x").agent,
        snapshot: { status: "active", value: "requesting", context: { turn, messages: transcriptOf(messages) } },
      });
      const prefix = checkpoint(log.slice(0, 2), 1);
      const elsewhere = checkpoint([message("not in the log")], 2);
      const stored = [storedCheckpoint(prefix, log), storedCheckpoint(elsewhere, log)];
      expect(JSON.stringify(stored[0])).toContain('"messages":{"$log":2}');
      expect(JSON.stringify(stored[1])).toContain("not in the log");
      await store.save("s1", { record: sampleRecord("s1"), firstIndex: 0, messages: log, checkpoints: stored });
      expect(await store.loadCheckpoints?.("nope")).toEqual([]);
      const loaded = (await store.loadCheckpoints?.("s1")) ?? [];
      expect(loaded.map((taken) => checkpointMessages(taken))).toEqual([log.slice(0, 2), [message("not in the log")]]);
      expect(loaded.map(({ snapshot: _snapshot, ...rest }) => rest)).toEqual([prefix, elsewhere].map(({ snapshot: _snapshot, ...rest }) => rest));
    });

    it("should reject ids that cannot name a file or be typed on a command line", async () => {
      const store = await open(kind.freshLocation());
      for (const id of ["", "../escape", "a/b", ".hidden", "x".repeat(129)]) {
        await expect(store.load(id)).rejects.toThrow(/A session id is 1–128 letters/);
      }
    });
  });
}
