import { describe, expect, it } from "vitest";
import { createActor, waitFor, type AnyActorRef } from "xstate";
import { agentLoopMachine } from "../../machines/index.js";
import { assistant, testModel } from "../helpers/mock-stream.js";

const calls = (count: number) => Array.from({ length: count }, (_, index) => ({ id: `c${index}`, name: "t", arguments: {} }));

/**
 * Ids of the actors the loop spawns for a response with `count` tool calls. (The
 * stand-in tools succeed on the next microtask, so the batch is over and its
 * actors stopped once the loop requests the next turn: the inspector saw them created.)
 */
async function childrenAfterResponse(count: number, callsPerGroup?: number): Promise<string[]> {
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
  await waitFor(actor, (snapshot) => snapshot.context.turn === 2);
  const ids = spawned.filter((ref) => ref._parent === actor && ref.id !== "requestModel").map((ref) => ref.id);
  // Every call settled and the loop asked the model again, with no call left behind.
  expect(actor.getSnapshot().value).toBe("requesting");
  expect(Object.keys(actor.getSnapshot().children)).toEqual(["requestModel"]);
  actor.stop();
  return ids;
}

describe("spawning a batch's calls", async () => {
  it("spawns each call as the loop's own child, with the tool call id as actor id", async () => {
    expect(await childrenAfterResponse(3)).toEqual(["c0", "c1", "c2"]);
  });

  it("spawns a batch larger than callsPerGroup in call groups of that size", async () => {
    expect(await childrenAfterResponse(5, 2)).toEqual(["calls-0", "calls-1", "calls-2"]);
  });

  it("treats a callsPerGroup below 1 as 1 instead of looping forever", async () => {
    expect(await childrenAfterResponse(2, 0)).toEqual(["calls-0", "calls-1"]);
  });
});
