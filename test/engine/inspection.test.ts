import { describe, expect, it } from "vitest";
import type { AnyActor, AnyActorRef, InspectionEvent } from "xstate";
import { createAgentLoopActor } from "../../src/xstate/index.js";
import type { AgentEvent } from "../../src/types.js";
import { baseConfig, mockStream, user } from "../helpers/mock-stream.js";
import { echoTool } from "../helpers/tools.js";

describe("inspection", () => {
  it("shows the loop and every per-call actor to an inspector, and onEvent gets every event in order", async () => {
    const { tool } = echoTool();
    const stream = mockStream([
      { calls: [{ id: "first", name: "echo", arguments: { text: "a" } }, { id: "second", name: "echo", arguments: { text: "b" } }] },
      { text: "done" },
    ]);
    const actorIds = new Set<string>();
    const systemIds = new Set<string>();
    const events: AgentEvent[] = [];
    const actor = createAgentLoopActor({
      prompts: [user("go")],
      context: { systemPrompt: "", messages: [], tools: [tool] },
      config: baseConfig(),
      streamFn: stream,
      inspect: (event: InspectionEvent) => {
        if (event.type === "@xstate.actor") actorIds.add((event.actorRef as AnyActorRef).id);
        const { systemId } = event.actorRef as AnyActor;
        if (systemId !== undefined) systemIds.add(systemId);
      },
      onEvent: (event) => events.push(event),
    });
    const output = await new Promise((resolve) => {
      actor.subscribe({ complete: () => resolve(actor.getSnapshot().output) });
      actor.start();
    });
    expect(output).toMatchObject({ exitReason: "completed" });
    // A call's actor id is its place in the batch; its system id names its tool call.
    expect(actorIds).toContain("call@0");
    expect(actorIds).toContain("call@1");
    expect(systemIds).toContain("toolCall:first");
    expect(systemIds).toContain("toolCall:second");
    expect(actorIds).toContain("requestModel");
    expect(events[0]?.type).toBe("agent_start");
    expect(events.at(-1)?.type).toBe("agent_end");
    expect(events.filter((e) => e.type === "message_update").length).toBeGreaterThan(0);
  });
});
