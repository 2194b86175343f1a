/**
 * `Agent` with a `sessionStore`, in one process: what each run leaves in the store,
 * how a finished session is resumed, and the errors for ids that do not fit.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Type } from "typebox";
import { Agent } from "../../src/agent.js";
import { LoopInputError } from "../../src/errors/loop-input-error.js";
import { SessionNotFoundError } from "../../src/errors/session-not-found-error.js";
import type { SessionStore } from "../../src/sessions/session-store.js";
import type { AgentTool } from "../../src/types.js";
import { mockStream, testModel } from "../helpers/mock-stream.js";
import { STORE_KINDS } from "./store-fixtures.js";

const parameters = Type.Object({ text: Type.String() });
const echo: AgentTool<typeof parameters> = {
  name: "echo",
  label: "Echo",
  description: "Echoes text",
  parameters,
  execute: async (_id, args) => ({ content: [{ type: "text", text: `echo: ${args.text}` }], details: {} }),
};

const roles = (messages: readonly { role: string }[]) => messages.map((message) => message.role);

for (const kind of STORE_KINDS) {
  describe(`an Agent with a ${kind.name} session store`, () => {
    const opened: SessionStore[] = [];
    const open = async (location: string) => {
      const store = await kind.open(location);
      opened.push(store);
      return store;
    };
    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close();
    });

    it("should leave the transcript in the log and a finished record after each run, appending across prompts", async () => {
      const store = await open(kind.freshLocation());
      const streamFn = mockStream([{ calls: [{ id: "e1", name: "echo", arguments: { text: "hi" } }] }, { text: "said hi" }, { text: "second answer" }]);
      const agent = new Agent({ initialState: { systemPrompt: "sys", model: testModel, tools: [echo] }, streamFn, sessionId: "s1", sessionStore: store, sessionMeta: { origin: "test" } });
      await agent.prompt("say hi");
      const first = await store.load("s1");
      expect(first?.messages).toEqual(agent.state.messages);
      expect(roles(first?.messages ?? [])).toEqual(["user", "assistant", "toolResult", "assistant"]);
      expect(first?.record).toMatchObject({ state: "done", turns: 2, runs: 1, exitReason: "completed", meta: { origin: "test" }, agent: { systemPrompt: "sys", model: testModel } });
      expect(first?.startedCalls).toEqual(["1:1:e1"]);
      await agent.prompt("again");
      const second = await store.load("s1");
      expect(second?.messages).toEqual(agent.state.messages);
      expect(second?.messages.slice(0, 4)).toEqual(first?.messages);
      expect(second?.record).toMatchObject({ state: "done", turns: 3, runs: 2 });
    });

    it("should record a run that failed as failed, with its error", async () => {
      const store = await open(kind.freshLocation());
      const agent = new Agent({ initialState: { model: testModel }, streamFn: mockStream([{ stopReason: "error", errorMessage: "provider down" }]), sessionId: "s1", sessionStore: store });
      await agent.prompt("hello");
      expect((await store.load("s1"))?.record).toMatchObject({ state: "failed", exitReason: "error", errorMessage: "provider down" });
    });

    it("should resume a finished session with its transcript and settings, and go on appending", async () => {
      const location = kind.freshLocation();
      const store = await open(location);
      const original = new Agent({ initialState: { systemPrompt: "sys", model: testModel, thinkingLevel: "low" }, streamFn: mockStream([{ text: "one" }]), sessionId: "s1", sessionStore: store });
      await original.prompt("first");
      const resumed = await Agent.resume(await open(location), "s1", { streamFn: mockStream([{ text: "two" }]) });
      expect(resumed.state.messages).toEqual(original.state.messages);
      expect(resumed.state.systemPrompt).toBe("sys");
      expect(resumed.state.thinkingLevel).toBe("low");
      expect(resumed.state.isStreaming).toBe(false);
      await resumed.prompt("second");
      const stored = await (await open(location)).load("s1");
      expect(roles(stored?.messages ?? [])).toEqual(["user", "assistant", "user", "assistant"]);
      expect(stored?.record).toMatchObject({ runs: 2, turns: 2, state: "done" });
    });

    it("should refuse to start a new agent over a session that already holds messages", async () => {
      const store = await open(kind.freshLocation());
      await new Agent({ initialState: { model: testModel }, streamFn: mockStream([{ text: "one" }]), sessionId: "taken", sessionStore: store }).prompt("first");
      const other = new Agent({ initialState: { model: testModel }, streamFn: mockStream([{ text: "two" }]), sessionId: "taken", sessionStore: store });
      await expect(other.prompt("clobber")).rejects.toThrow(/already holds 2 messages .* Agent\.resume\(store, "taken"\)/);
      expect(roles((await store.load("taken"))?.messages ?? [])).toEqual(["user", "assistant"]);
    });

    it("should say which session is missing, and where it looked", async () => {
      const store = await open(kind.freshLocation());
      const error = await Agent.resume(store, "ghost").catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(SessionNotFoundError);
      expect((error as Error).message).toBe(`No session "ghost" in ${store.location}.`);
    });
  });
}

describe("Agent's sessionStore option", () => {
  it("should need a session id to save under", async () => {
    const store = await STORE_KINDS[0]!.open(STORE_KINDS[0]!.freshLocation());
    expect(() => new Agent({ sessionStore: store })).toThrow(LoopInputError);
    expect(() => new Agent({ sessionStore: store, sessionId: "../up" })).toThrow(/sessionStore needs a sessionId .*A session id is 1–128/);
  });
});
