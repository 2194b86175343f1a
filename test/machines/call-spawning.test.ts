import { describe, expect, it } from "vitest";
import { createActor, type AnyActorRef } from "xstate";
import { agentLoopMachine } from "../../machines/index.js";
import { assistant, testModel } from "../helpers/mock-stream.js";

const calls = (count: number) => Array.from({ length: count }, (_, index) => ({ id: `c${index}`, name: "t", arguments: {} }));

/**
 * Ids of the actors the loop spawns for a response with `count` tool calls. (The
 * stand-in calls settle at once, so the batch is over and its actors stopped by
 * the time `send` returns: the inspector sees them created.)
 */
function childrenAfterResponse(count: number, callsPerGroup?: number): string[] {
  const spawned: AnyActorRef[] = [];
  const actor = createActor(agentLoopMachine, {
    inspect: (event) => {
      if (event.type === "@xstate.actor") spawned.push(event.actorRef as AnyActorRef);
    },
    input: {
      systemPrompt: "",
      messages: [],
      prompts: [],
      model: testModel,
      ...(callsPerGroup !== undefined ? { callsPerGroup } : {}),
    },
  });
  actor.start();
  actor.send({ type: "model.done", message: assistant({ calls: calls(count) }), started: false });
  const ids = spawned.filter((ref) => ref._parent === actor && ref.id !== "requestModel").map((ref) => ref.id);
  // Every call settled and the loop asked the model again, with no call left behind.
  expect(actor.getSnapshot().value).toBe("requesting");
  expect(Object.keys(actor.getSnapshot().children)).toEqual(["requestModel"]);
  actor.stop();
  return ids;
}

describe("spawning a batch's calls", () => {
  it("spawns each call as the loop's own child, with the tool call id as actor id", () => {
    expect(childrenAfterResponse(3)).toEqual(["c0", "c1", "c2"]);
  });

  it("spawns a batch larger than callsPerGroup in call groups of that size", () => {
    expect(childrenAfterResponse(5, 2)).toEqual(["calls-0", "calls-1", "calls-2"]);
  });

  it("treats a callsPerGroup below 1 as 1 instead of looping forever", () => {
    expect(childrenAfterResponse(2, 0)).toEqual(["calls-0", "calls-1"]);
  });
});
