/**
 * Approval across a resume, in one process: a durable run saved while a call
 * awaits approval is resumed by a second `Agent` that finds the call still
 * waiting (no new `approval_requested`), takes `approve` / `reject`, and keeps
 * the session's `always` approvals. (The cross-process CLI version is the sessions work's.)
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Type } from "typebox";
import { Agent, type AgentEvent, type AgentMessage, type AgentTool, type ToolResultMessage } from "../../src/index.js";
import { JsonlSessionStore } from "../../src/sessions/jsonl-session-store.js";
import { mockStream, testModel } from "../helpers/mock-stream.js";
import { tempDirSync } from "../support/temp-dir.js";

const parameters = Type.Object({ target: Type.String() });

function tools(runs: string[]): AgentTool[] {
  const tool = (name: string, needsApproval: boolean): AgentTool<typeof parameters> => ({
    name,
    label: name,
    description: name,
    parameters,
    needsApproval,
    async execute(id, args) {
      runs.push(id);
      return { content: [{ type: "text", text: `${name} ${args.target}` }], details: {} };
    },
  });
  return [tool("deploy", true), tool("echo", false)];
}

const results = (messages: AgentMessage[]) =>
  messages.filter((message): message is ToolResultMessage => message.role === "toolResult").map((message) => [message.toolCallId, message.isError]);

/** What the wait below reads of a stored loop snapshot: its batch child's result slots. */
interface StoredLoop {
  children?: { toolBatch?: { snapshot?: { context?: { slots?: unknown[] } } } };
}

/** Starts a session whose first batch has a call awaiting approval; resolves once the store says so. */
async function waitingSession(store: JsonlSessionStore, sessionId: string) {
  const runs: string[] = [];
  const agent = new Agent({
    initialState: { model: testModel, tools: tools(runs) },
    streamFn: mockStream([
      { calls: [{ id: "e1", name: "echo", arguments: { target: "a" } }, { id: "d1", name: "deploy", arguments: { target: "prod" } }] },
    ]),
    sessionId,
    sessionStore: store,
  });
  let requested: () => void = () => {};
  const asked = new Promise<void>((resolve) => {
    requested = resolve;
  });
  agent.subscribe((event) => {
    if (event.type === "approval_requested") requested();
  });
  void agent.prompt("ship it");
  await asked;
  // The run goes on saving; wait until the stored snapshot has the free call's result in the batch
  // (the batch is the loop's child actor: its results are in its own context's slots, by member).
  const settledInStore = async () => {
    const stored = await store.load(sessionId);
    const snapshot = stored?.record.snapshot as StoredLoop | undefined;
    const slots = snapshot?.children?.toolBatch?.snapshot?.context?.slots;
    return stored?.record.state === "awaiting approval" && Array.isArray(slots?.[0]);
  };
  // Polled until it holds (the test's timeout bounds it), not for a count of polls after which the test went on unsettled.
  while (!(await settledInStore())) await new Promise((resolve) => setTimeout(resolve, 10));
  return { agent, runs };
}

/**
 * Ends the first agent's run (still waiting for approval) and closes the store once that
 * run has finished saving: closed earlier, its last write would land after the test's
 * temp dir was removed and make it again.
 */
async function stopFirst(agent: Agent, store: JsonlSessionStore): Promise<void> {
  agent.abort();
  await agent.waitForIdle();
  await store.close();
}

describe("approval across a resume", () => {
  for (const decision of ["approve", "reject"] as const) {
    it(`a resumed agent finds the call still waiting and takes ${decision}()`, async () => {
      const store = new JsonlSessionStore(join(tempDirSync("loopchart-approval-"), "sessions"));
      const first = await waitingSession(store, "s1");
      expect((await store.load("s1"))?.record.state).toBe("awaiting approval");

      const runs: string[] = [];
      const events: AgentEvent[] = [];
      const resumed = await Agent.resume(store, "s1", {
        initialState: { tools: tools(runs) },
        streamFn: mockStream([{ text: "done" }]),
      });
      resumed.subscribe((event) => {
        events.push(event);
      });
      expect(resumed.awaitingApproval()).toEqual(["d1"]);
      if (decision === "approve") resumed.approve("d1", { always: true });
      else resumed.reject("d1", "not today");
      await resumed.waitForIdle();

      expect(events.some((event) => event.type === "approval_requested")).toBe(false);
      // The free call ran once, in the first agent; the decided one ran only if approved.
      expect(first.runs).toEqual(["e1"]);
      expect(runs).toEqual(decision === "approve" ? ["d1"] : []);
      expect(results(resumed.state.messages)).toEqual([
        ["e1", false],
        ["d1", decision === "reject"],
      ]);
      expect((await store.load("s1"))?.record.state).toBe("done");
      await stopFirst(first.agent, store);
    });
  }

  it("keeps a tool approved with always for the prompts after a resume", async () => {
    const store = new JsonlSessionStore(join(tempDirSync("loopchart-approval-"), "sessions"));
    const first = await waitingSession(store, "s2");
    const runs: string[] = [];
    const resumed = await Agent.resume(store, "s2", {
      initialState: { tools: tools(runs) },
      streamFn: mockStream([{ text: "done" }, { calls: [{ id: "d2", name: "deploy", arguments: { target: "prod" } }] }, { text: "again" }]),
    });
    resumed.approve("d1", { always: true });
    await resumed.waitForIdle();
    const again = await Agent.resume(store, "s2", {
      initialState: { tools: tools(runs) },
      streamFn: mockStream([{ calls: [{ id: "d2", name: "deploy", arguments: { target: "prod" } }] }, { text: "again" }]),
    });
    await again.prompt("once more");
    expect(runs).toEqual(["d1", "d2"]);
    await stopFirst(first.agent, store);
  });
});
