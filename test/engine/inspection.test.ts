import { describe, expect, it } from "vitest";
import type { AnyActorRef, InspectionEvent } from "xstate";
import { createAgentLoopActor } from "../../src/index.js";
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
    const events: AgentEvent[] = [];
    const actor = createAgentLoopActor({
      prompts: [user("go")],
      context: { systemPrompt: "", messages: [], tools: [tool] },
      config: baseConfig(),
      streamFn: stream,
      inspect: (event: InspectionEvent) => {
        if (event.type === "@xstate.actor") actorIds.add((event.actorRef as AnyActorRef).id);
      },
      onEvent: (event) => events.push(event),
    });
    const output = await new Promise((resolve) => {
      actor.subscribe({ complete: () => resolve(actor.getSnapshot().output) });
      actor.start();
    });
    expect(output).toMatchObject({ exitReason: "completed" });
    expect(actorIds).toContain("first");
    expect(actorIds).toContain("second");
    expect(actorIds).toContain("requestModel");
    expect(events[0]?.type).toBe("agent_start");
    expect(events.at(-1)?.type).toBe("agent_end");
    expect(events.filter((e) => e.type === "message_update").length).toBeGreaterThan(0);
  });
});
