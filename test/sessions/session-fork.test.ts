/**
 * Checkpoints and forks of durable sessions, through the `Agent` API, for both stores:
 * a checkpoint per turn boundary and approval wait; `Agent.fork` continues exactly from
 * one (with a new prompt, or the checkpoint's own run); the parent is untouched to the
 * byte; and the errors for a missing session, turn, taken id and a session without checkpoints.
 */
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Type } from "typebox";
import { Agent } from "../../src/agent.js";
import { CheckpointNotFoundError } from "../../src/errors/checkpoint-not-found-error.js";
import { SessionExistsError } from "../../src/errors/session-exists-error.js";
import { SessionNotFoundError } from "../../src/errors/session-not-found-error.js";
import { LoopInputError } from "../../src/errors/loop-input-error.js";
import { checkpointLabel, checkpointMessages } from "../../src/sessions/session-checkpoint.js";
import type { SessionStore } from "../../src/sessions/session-store.js";
import type { AgentMessage, AgentTool } from "../../src/types.js";
import { mockStream, testModel } from "../helpers/mock-stream.js";
import { sampleRecord, sessionBytes as parentBytes, STORE_KINDS, type StoreKind } from "./store-fixtures.js";

const parameters = Type.Object({ text: Type.String() });
const echo: AgentTool<typeof parameters> = {
  name: "echo",
  label: "Echo",
  description: "Echoes text",
  parameters,
  execute: async (_id, args) => ({ content: [{ type: "text", text: `echo: ${args.text}` }], details: {} }),
};
const call = (id: string, text: string) => ({ calls: [{ id, name: "echo", arguments: { text } }] });
const textOf = (message: AgentMessage | undefined): string => {
  const content = (message as { content?: unknown } | undefined)?.content;
  if (typeof content === "string") return content;
  return Array.isArray(content) ? content.map((block: { text?: string }) => block.text ?? "").join("") : "";
};

for (const kind of STORE_KINDS) {
  describe(`checkpoints and forks (${kind.name} store)`, () => {
    const opened: SessionStore[] = [];
    const open = async (location: string) => {
      const store = await kind.open(location);
      opened.push(store);
      return store;
    };
    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close();
    });

    /** A session of five turns over two runs: turn 1 calls echo, 2 answers; 3 and 4 call echo, 5 answers. */
    async function fiveTurns(location: string): Promise<{ store: SessionStore; agent: Agent }> {
      const store = await open(location);
      const streamFn = mockStream([call("e1", "one"), { text: "first answer" }, call("e2", "two"), call("e3", "three"), { text: "second answer" }]);
      const agent = new Agent({ initialState: { systemPrompt: "sys", model: testModel, tools: [echo] }, streamFn, sessionId: "main", sessionStore: store });
      await agent.prompt("first question");
      await agent.prompt("second question");
      return { store, agent };
    }

    it("should keep a checkpoint at the end of every turn, each holding the transcript as it was then", async () => {
      const { store, agent } = await fiveTurns(kind.freshLocation());
      const stored = await store.load("main");
      expect(stored?.record).toMatchObject({ turns: 5, runs: 2, checkpoints: "turns" });
      const checkpoints = (await store.loadCheckpoints?.("main")) ?? [];
      expect(checkpoints.map(checkpointLabel)).toEqual(["1", "2", "3", "4", "5"]);
      const lengths = checkpoints.map((checkpoint) => checkpointMessages(checkpoint).length);
      // user, assistant(call), result | assistant | user, assistant(call), result | assistant(call), result | assistant
      expect(lengths).toEqual([3, 4, 7, 9, 10]);
      for (const checkpoint of checkpoints) expect(checkpointMessages(checkpoint)).toEqual(agent.state.messages.slice(0, checkpointMessages(checkpoint).length));
      expect(checkpoints.map((checkpoint) => checkpoint.run)).toEqual([1, 1, 2, 2, 2]);
      // Taken right after turn 5's turn_end: the agent's run still polls its steering queue there.
      expect(checkpoints[4]?.snapshot).toMatchObject({ status: "active", value: { betweenTurns: "pollingSteering" } });
    });

    it("should fork a five-turn session at turn 2 with a new prompt, continuing from exactly the checkpoint's transcript and leaving the parent byte-identical", async () => {
      const location = kind.freshLocation();
      const { store, agent } = await fiveTurns(location);
      const before = parentBytes(kind, location, "main");
      const checkpoint = ((await store.loadCheckpoints?.("main")) ?? [])[1];
      const streamFn = mockStream([{ text: "a different second answer" }]);
      const fork = await Agent.fork(store, "main", { atTurn: 2, sessionId: "branch", prompt: "another question" }, { initialState: { tools: [echo] }, streamFn });
      await fork.waitForIdle();
      expect(fork.sessionId).toBe("branch");
      const atCheckpoint = checkpointMessages(checkpoint ?? { snapshot: {} });
      expect(atCheckpoint).toEqual(agent.state.messages.slice(0, 4));
      // The model saw exactly the checkpoint's transcript, then the new prompt.
      expect(streamFn.requests[0]?.context.messages.slice(0, 4)).toEqual(atCheckpoint);
      expect(streamFn.requests[0]?.context.messages.slice(4).map(textOf)).toEqual(["another question"]);
      const branch = await store.load("branch");
      expect(branch?.messages.slice(0, 4)).toEqual(atCheckpoint);
      expect(branch?.messages.slice(4).map(textOf)).toEqual(["another question", "a different second answer"]);
      expect(branch?.record).toMatchObject({ state: "done", turns: 3, runs: 2, forkedFrom: { session: "main", at: "2", kind: "turn", turn: 2 } });
      expect(((await store.loadCheckpoints?.("branch")) ?? []).map(checkpointLabel)).toEqual(["1", "2", "3"]);
      expect(parentBytes(kind, location, "main")).toBe(before);
      const listed = await store.list();
      expect(listed.find((session) => session.id === "branch")?.forkedFrom).toMatchObject({ session: "main", at: "2" });
      expect(listed.find((session) => session.id === "main")?.forkedFrom).toBeUndefined();
    });

    it("should fork mid-run without a prompt and go on with that run: the next request sees the checkpoint's transcript", async () => {
      const location = kind.freshLocation();
      const { store, agent } = await fiveTurns(location);
      const before = parentBytes(kind, location, "main");
      const streamFn = mockStream([{ text: "stopped early" }]);
      const fork = await Agent.fork(store, "main", { atTurn: 3 }, { initialState: { tools: [echo] }, streamFn });
      await fork.waitForIdle();
      expect(fork.sessionId).toBe("main.at-3");
      expect(streamFn.requests).toHaveLength(1);
      expect(streamFn.requests[0]?.context.messages).toEqual(agent.state.messages.slice(0, 7));
      const branch = await store.load("main.at-3");
      expect(branch?.messages.map(textOf).slice(7)).toEqual(["stopped early"]);
      expect(branch?.record).toMatchObject({ state: "done", turns: 4, runs: 2, exitReason: "completed" });
      // A fork of the fork at an earlier turn: the checkpoints it inherited are forkable too.
      const again = await Agent.fork(store, "main.at-3", { atTurn: 1, prompt: "from the top" }, { streamFn: mockStream([{ text: "again" }]) });
      await again.waitForIdle();
      expect(again.sessionId).toBe("main.at-3.at-1");
      expect((await store.load("main.at-3.at-1"))?.messages.map(textOf).slice(3)).toEqual(["from the top", "again"]);
      expect(parentBytes(kind, location, "main")).toBe(before);
    });

    it("should say what is wrong: no such session, no such turn, a taken id, a prompt at an approval wait", async () => {
      const { store } = await fiveTurns(kind.freshLocation());
      const options = { streamFn: mockStream([]) };
      await expect(Agent.fork(store, "ghost", { atTurn: 1 }, options)).rejects.toThrow(SessionNotFoundError);
      const missing = await Agent.fork(store, "main", { atTurn: 9 }, options).catch((error: unknown) => error);
      expect(missing).toBeInstanceOf(CheckpointNotFoundError);
      expect((missing as Error).message).toBe('Session "main" has no checkpoint 9; it has: turns 1–5.');
      await expect(Agent.fork(store, "main", { atTurn: 0 }, options)).rejects.toThrow(LoopInputError);
      await Agent.fork(store, "main", { atTurn: 5, sessionId: "taken" }, options);
      const taken = await Agent.fork(store, "main", { atTurn: 2, sessionId: "taken" }, options).catch((error: unknown) => error);
      expect(taken).toBeInstanceOf(SessionExistsError);
      await expect(Agent.fork(store, "main", { atTurn: 2, sessionId: "main" }, options)).rejects.toThrow(SessionExistsError);
      await expect(Agent.fork(store, "main", { atTurn: 1, atApproval: "x1" }, options)).rejects.toThrow(/no checkpoint 1:x1/);
    });

    it("should fork a session another owner holds the lease of, reading it only", async () => {
      const location = kind.freshLocation();
      await fiveTurns(location);
      const before = parentBytes(kind, location, "main");
      const owner = await open(location);
      const lease = await owner.acquire("main");
      const reader = await open(location);
      const fork = await Agent.fork(reader, "main", { atTurn: 4, prompt: "branch off" }, { streamFn: mockStream([{ text: "branched" }]) });
      await fork.waitForIdle();
      expect(owner.holds("main")).toBe(true);
      expect((await reader.load(fork.sessionId as string))?.messages.map(textOf).slice(-2)).toEqual(["branch off", "branched"]);
      await lease.release();
      expect(parentBytes(kind, location, "main")).toBe(before);
    });

    it("should refuse to fork sessions without checkpoints, saying why", async () => {
      const store = await open(kind.freshLocation());
      // A record as loopchart wrote it before checkpoints existed: no "checkpoints" field, no checkpoint log.
      await store.save("old", { record: sampleRecord("old", { state: "done", turns: 2 }), firstIndex: 0, messages: [] });
      const old = await Agent.fork(store, "old", { atTurn: 1 }).catch((error: unknown) => error);
      expect(old).toBeInstanceOf(CheckpointNotFoundError);
      expect((old as CheckpointNotFoundError).reason).toBe("unrecorded");
      expect((old as Error).message).toContain('Session "old" has no checkpoints: it was written before loopchart kept them');
      const latest = new Agent({ initialState: { model: testModel }, streamFn: mockStream([{ text: "hi" }]), sessionId: "small", sessionStore: store, checkpoints: "latest" });
      await latest.prompt("hello");
      expect(await store.loadCheckpoints?.("small")).toEqual([]);
      await expect(Agent.fork(store, "small", { atTurn: 1 })).rejects.toThrow('Session "small" keeps only its latest snapshot (checkpoints: "latest")');
    });
  });
}

describe("a checkpoint at an approval wait", () => {
  const kind = STORE_KINDS[0] as StoreKind;
  it("should be taken when the run waits, and forking there waits again for a decision that may differ", async () => {
    const store = await kind.open(kind.freshLocation());
    const runs: string[] = [];
    const deploy: AgentTool<typeof parameters> = { ...echo, name: "deploy", needsApproval: true, execute: async (id, args) => (runs.push(id), { content: [{ type: "text", text: `deployed ${args.text}` }], details: {} }) };
    const agent = new Agent({ initialState: { model: testModel, tools: [deploy] }, streamFn: mockStream([{ calls: [{ id: "d1", name: "deploy", arguments: { text: "prod" } }] }, { text: "deployed" }]), sessionId: "ship", sessionStore: store });
    const done = agent.prompt("ship it");
    while (agent.awaitingApproval().length === 0) await new Promise((resolve) => setTimeout(resolve, 2));
    // The wait is taken as a checkpoint once saved; give the recorder its turn.
    for (let i = 0; i < 50 && ((await store.loadCheckpoints?.("ship")) ?? []).length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    agent.approve("d1");
    await done;
    expect(runs).toEqual(["d1"]);
    const labels = ((await store.loadCheckpoints?.("ship")) ?? []).map(checkpointLabel);
    expect(labels).toEqual(["1:d1", "1", "2"]);
    await expect(Agent.fork(store, "ship", { atTurn: 1, atApproval: "d1", prompt: "no" })).rejects.toThrow(/waits for approval: its calls have no results yet/);
    const fork = await Agent.fork(store, "ship", { atTurn: 1, atApproval: "d1", sessionId: "ship-rejected" }, { initialState: { tools: [deploy] }, streamFn: mockStream([{ text: "not deployed" }]) });
    expect(fork.awaitingApproval()).toEqual(["d1"]);
    fork.reject("d1", "not today");
    await fork.waitForIdle();
    expect(runs).toEqual(["d1"]);
    const branch = await store.load("ship-rejected");
    expect(branch?.messages.map((message) => message.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    expect(textOf(branch?.messages[2])).toContain("not today");
    expect(branch?.record.forkedFrom).toMatchObject({ session: "ship", at: "1:d1", kind: "approval" });
    await store.close();
  });

  it("should keep tools approved with always before the checkpoint approved in a fork with a new prompt", async () => {
    const store = await kind.open(kind.freshLocation());
    const runs: string[] = [];
    const deploy: AgentTool<typeof parameters> = { ...echo, name: "deploy", needsApproval: true, execute: async (id) => (runs.push(id), { content: [{ type: "text", text: "deployed" }], details: {} }) };
    const agent = new Agent({ initialState: { model: testModel, tools: [deploy] }, streamFn: mockStream([{ calls: [{ id: "d1", name: "deploy", arguments: { text: "a" } }] }, { text: "done" }]), sessionId: "ship", sessionStore: store });
    const done = agent.prompt("ship it");
    while (agent.awaitingApproval().length === 0) await new Promise((resolve) => setTimeout(resolve, 2));
    agent.approve("d1", { always: true });
    await done;
    const fork = await Agent.fork(store, "ship", { atTurn: 2, prompt: "again" }, { initialState: { tools: [deploy] }, streamFn: mockStream([{ calls: [{ id: "d2", name: "deploy", arguments: { text: "b" } }] }, { text: "done again" }]) });
    await fork.waitForIdle();
    expect(runs).toEqual(["d1", "d2"]);
    expect(textOf(fork.state.messages.at(-1))).toBe("done again");
    await store.close();
  });
});

describe("a damaged checkpoint log (jsonl)", () => {
  const kind = STORE_KINDS[0] as StoreKind;
  it("should drop a torn last checkpoint and name the file and line of one that is not a checkpoint", async () => {
    const location = kind.freshLocation();
    const store = await kind.open(location);
    await new Agent({ initialState: { model: testModel, tools: [echo] }, streamFn: mockStream([call("e1", "x"), { text: "done" }]), sessionId: "s", sessionStore: store }).prompt("go");
    const path = join(location, "s", "checkpoints.jsonl");
    const intact = readFileSync(path, "utf8");
    expect(intact.trimEnd().split("\n")).toHaveLength(2);
    appendFileSync(path, '{"kind":"turn","tur');
    expect(((await store.loadCheckpoints?.("s")) ?? []).map(checkpointLabel)).toEqual(["1", "2"]);
    writeFileSync(path, `${intact}{"kind":"nonsense"}\n`);
    await expect(store.loadCheckpoints?.("s")).rejects.toThrow(`${path}:3: not a checkpoint`);
    await store.close();
  });
});
