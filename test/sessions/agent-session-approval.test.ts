/**
 * A durable session waiting for approval: the wait is saved ("awaiting approval"),
 * another agent resumed from the store answers it with `approve()`, the call runs
 * once there, and `always` still holds for the session's next run.
 */
import { describe, expect, it } from "vitest";
import { Type } from "typebox";
import { Agent } from "../../src/agent.js";
import type { AgentTool } from "../../src/types.js";
import { mockStream, testModel } from "../helpers/mock-stream.js";
import { STORE_KINDS } from "./store-fixtures.js";

const parameters = Type.Object({ target: Type.String() });
const deployTool = (runs: string[]): AgentTool<typeof parameters> => ({
  name: "deploy",
  label: "Deploy",
  description: "Deploys",
  parameters,
  needsApproval: true,
  execute: async (id, args) => {
    runs.push(id);
    return { content: [{ type: "text", text: `deployed ${args.target}` }], details: {} };
  },
});

for (const kind of STORE_KINDS) {
  describe(`approval in a durable ${kind.name} session`, () => {
    it("should save the wait, let a resumed agent approve it, and keep always for the next run", async () => {
      const location = kind.freshLocation();
      const firstStore = await kind.open(location);
      const firstRuns: string[] = [];
      const first = new Agent({
        initialState: { model: testModel, tools: [deployTool(firstRuns)] },
        streamFn: mockStream([{ calls: [{ id: "d1", name: "deploy", arguments: { target: "prod" } }] }]),
        sessionId: "ship",
        sessionStore: firstStore,
      });
      void first.prompt("ship it");
      // The wait is on disk once the store says so; the first agent is then abandoned (its process "died").
      for (;;) {
        const probe = await kind.open(location);
        const state = (await probe.load("ship"))?.record.state;
        await probe.close();
        if (state === "awaiting approval") break;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      // Its process "dies": the session's lease goes with it (a live holder would refuse the resume).
      await firstStore.close();

      const runs: string[] = [];
      const store = await kind.open(location);
      const resumed = await Agent.resume(store, "ship", { initialState: { tools: [deployTool(runs)] }, streamFn: mockStream([{ text: "shipped" }]) });
      expect(resumed.awaitingApproval()).toEqual(["d1"]);
      resumed.approve("d1", { always: true });
      await resumed.waitForIdle();
      expect(runs).toEqual(["d1"]);
      expect(firstRuns).toEqual([]);
      const done = await store.load("ship");
      expect(done?.record.state).toBe("done");
      expect(done?.messages.map((message) => message.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);

      const later = await Agent.resume(store, "ship", {
        initialState: { tools: [deployTool(runs)] },
        streamFn: mockStream([{ calls: [{ id: "d2", name: "deploy", arguments: { target: "eu" } }] }, { text: "again" }]),
      });
      const asked: string[] = [];
      later.subscribe((event) => {
        if (event.type === "approval_requested") asked.push(event.toolCallId);
      });
      await later.prompt("and eu");
      expect(asked).toEqual([]);
      expect(runs).toEqual(["d1", "d2"]);
      await store.close();
      await firstStore.close();
    });
  });
}
