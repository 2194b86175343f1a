/**
 * `agent.approve` / `agent.reject`: the Agent's face of approval as a state. A
 * call that needs approval keeps the run active (prompt() pending, isStreaming)
 * until decided; a listener hears `approval_requested`; decisions that cannot be
 * applied throw an `ApprovalError` and change nothing; `always` lasts for the
 * agent's session (until reset()); abort() ends a waiting call aborted.
 */
import { describe, expect, it } from "vitest";
import { Type } from "typebox";
import {
  Agent,
  ApprovalError,
  type AgentEvent,
  type AgentMessage,
  type AgentTool,
  type ToolResultMessage,
} from "../../src/index.js";
import { mockStream, testModel, type MockResponse } from "../helpers/mock-stream.js";

const parameters = Type.Object({ target: Type.String() });

function deployTool(runs: string[]): AgentTool<typeof parameters> {
  return {
    name: "deploy",
    label: "Deploy",
    description: "Deploys",
    parameters,
    needsApproval: true,
    async execute(id, args) {
      runs.push(id);
      return { content: [{ type: "text", text: `deployed ${args.target}` }], details: {} };
    },
  };
}

const deploy = (id: string, target = id) => ({ id, name: "deploy", arguments: { target } });
const results = (messages: AgentMessage[]) => messages.filter((message): message is ToolResultMessage => message.role === "toolResult");
const text = (message: ToolResultMessage | undefined) => message?.content.map((block) => (block.type === "text" ? block.text : "")).join("");

/** An agent whose model answers `responses` in request order, across prompts. */
function agentWith(responses: MockResponse[]) {
  const runs: string[] = [];
  const agent = new Agent({ initialState: { model: testModel, tools: [deployTool(runs)] }, streamFn: mockStream(responses) });
  const events: AgentEvent[] = [];
  const requested: string[] = [];
  const waiters: { id: string; resolve: () => void }[] = [];
  agent.subscribe((event) => {
    events.push(event);
    if (event.type === "approval_requested") {
      requested.push(event.toolCallId);
      for (const waiter of waiters.filter((entry) => entry.id === event.toolCallId)) waiter.resolve();
    }
  });
  const whenRequested = (id: string) =>
    requested.includes(id) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ id, resolve }));
  return { agent, runs, events, requested, whenRequested };
}

describe("Agent approval", () => {
  it("keeps the run active until approve(), then runs the call; the listener hears approval_requested", async () => {
    const { agent, runs, events, whenRequested } = agentWith([{ calls: [deploy("d1", "prod")] }, { text: "done" }]);
    const done = agent.prompt("deploy it");
    await whenRequested("d1");
    expect(agent.state.isStreaming).toBe(true);
    expect(agent.awaitingApproval()).toEqual(["d1"]);
    expect(events.find((event) => event.type === "approval_requested")).toEqual({
      type: "approval_requested",
      toolCallId: "d1",
      toolName: "deploy",
      args: { target: "prod" },
    });
    await expect(agent.prompt("again")).rejects.toThrow("Agent is already processing");
    agent.approve("d1");
    await done;
    expect(runs).toEqual(["d1"]);
    expect(text(results(agent.state.messages)[0])).toBe("deployed prod");
    expect(agent.awaitingApproval()).toEqual([]);
  });

  it("reject() gives the call an error result carrying the reason; the tool never runs", async () => {
    const { agent, runs, whenRequested } = agentWith([{ calls: [deploy("d1")] }, { text: "ok, not deploying" }]);
    const done = agent.prompt("deploy it");
    await whenRequested("d1");
    agent.reject("d1", "change freeze");
    await done;
    expect(runs).toEqual([]);
    const [result] = results(agent.state.messages);
    expect(result?.isError).toBe(true);
    expect(text(result)).toBe("Tool call was rejected: change freeze");
  });

  it("throws ApprovalError for an unknown id, a second decision, a call not waiting, and when idle", async () => {
    const { agent, whenRequested } = agentWith([{ calls: [deploy("d1")] }, { text: "done" }]);
    expect(() => agent.approve("d1")).toThrow(new ApprovalError("d1", 'No run is active, so tool call "d1" is not awaiting approval'));
    const done = agent.prompt("deploy it");
    await whenRequested("d1");
    expect(() => agent.reject("nope")).toThrow('Tool call "nope" is not a call of the current tool batch');
    agent.approve("d1");
    const second = (() => {
      try {
        agent.approve("d1");
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(second).toBeInstanceOf(ApprovalError);
    expect((second as ApprovalError).toolCallId).toBe("d1");
    expect((second as Error).message).toBe('Tool call "d1" was already approved');
    await done;
    expect(() => agent.reject("d1")).toThrow(ApprovalError);
  });

  it("approve(id, { always: true }) lasts for the session: later calls of the tool do not wait, until reset()", async () => {
    const { agent, runs, requested, whenRequested } = agentWith([
      { calls: [deploy("d1")] },
      { text: "done" },
      { calls: [deploy("d2")] },
      { text: "done" },
      { calls: [deploy("d3")] },
      { text: "done" },
    ]);
    const first = agent.prompt("one");
    await whenRequested("d1");
    agent.approve("d1", { always: true });
    await first;
    await agent.prompt("two");
    expect(runs).toEqual(["d1", "d2"]);
    expect(requested).toEqual(["d1"]);
    agent.reset();
    const third = agent.prompt("three");
    await whenRequested("d3");
    agent.approve("d3");
    await third;
    expect(requested).toEqual(["d1", "d3"]);
  });

  it("abort() while a call awaits approval ends it with the aborted result and the run aborted", async () => {
    const { agent, runs, whenRequested } = agentWith([{ calls: [deploy("d1")] }, { text: "never" }]);
    const done = agent.prompt("deploy it");
    await whenRequested("d1");
    agent.abort();
    await done;
    expect(runs).toEqual([]);
    expect(text(results(agent.state.messages)[0])).toBe("Operation aborted");
    expect(agent.state.errorMessage).toBeDefined();
  });
});
