import { describe, expect, it } from "vitest";
import { createEmptyActor } from "xstate";
import { getAdjacencyMap } from "xstate/graph";
import { agentLoopMachine, type AgentLoopInput } from "../../machines/index.js";
import type { AgentLoopEvent } from "../../machines/events.js";
import type { AssistantMessage } from "../../src/types.js";
import { assistant, testModel } from "../helpers/mock-stream.js";

type Snapshot = ReturnType<typeof agentLoopMachine.transition>;

const response = (kind: "text" | "call" | "length" | "error"): AssistantMessage =>
  kind === "text"
    ? assistant({ text: "hi" })
    : kind === "error"
      ? assistant({ stopReason: "error", errorMessage: "x" })
      : assistant({ calls: [{ id: "c", name: "t", arguments: {} }], ...(kind === "length" ? { stopReason: "length" as const } : {}) });

/** What the world can do in a given snapshot: an abstract event alphabet. */
function worldEvents(snapshot: Snapshot): AgentLoopEvent[] {
  const events: AgentLoopEvent[] = [{ type: "run.abort" }];
  if (snapshot.matches({ requesting: "awaitingResponse" })) {
    for (const kind of ["text", "call", "length", "error"] as const) {
      events.push({ type: "model.done", message: response(kind), started: false });
    }
  }
  const done = (id: string, output: unknown) => ({ type: `xstate.done.actor.${id}`, output }) as unknown as AgentLoopEvent;
  if (snapshot.matches("dispatching")) {
    // The batch machine's one event: its results, and whether they all terminate.
    const result = { role: "toolResult", toolCallId: "c", toolName: "t", content: [], details: {}, isError: false, timestamp: 0 };
    events.push(done("toolBatch", { offset: 0, results: [result], terminates: true }), done("toolBatch", { offset: 0, results: [result], terminates: false }));
  }
  events.push(done("pollSteering", []), done("pollSteering", [{ role: "user", content: "steer", timestamp: 0 }]));
  events.push(done("pollFollowUp", []), done("pollFollowUp", [{ role: "user", content: "more", timestamp: 0 }]));
  events.push(done("checkStopAfterTurn", true), done("checkStopAfterTurn", false));
  events.push(done("prepareNextTurn", undefined));
  return events;
}

const stateNames = (value: unknown): string[] =>
  typeof value === "string" ? [value] : Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => [k, ...stateNames(v).map((s) => `${k}.${s}`)]);

describe("the loop machine's reachable states", () => {
  it("reaches every named state of the design under an abstract world", () => {
    const input: AgentLoopInput = {
      systemPrompt: "",
      messages: [],
      prompts: [],
      model: testModel,
      maxTurns: 3,
      hooks: { steering: true, followUp: true, shouldStopAfterTurn: true, prepareNextTurn: true },
    };
    const map = getAdjacencyMap(agentLoopMachine as unknown as Parameters<typeof getAdjacencyMap<Snapshot, AgentLoopEvent, AgentLoopInput>>[0], {
      input,
      events: worldEvents,
      serializeState: (snapshot) => {
        const { refusal, turn, aborted, terminated, pending, exitReason } = snapshot.context;
        return JSON.stringify([snapshot.value, exitReason, turn, aborted, terminated, pending.length, refusal !== undefined]);
      },
      limit: 20_000,
    });
    // Stable states, and the states a step passes through (e.g. endingTurn, left at once).
    const reached = new Set(Object.values(map).flatMap((entry) => stateNames(entry.state.value)));
    const empty = createEmptyActor();
    const scope = { self: empty, logger: () => undefined, id: "", sessionId: "", defer: () => undefined, system: empty.system, stopChild: () => undefined, emit: () => undefined, actionExecutor: () => undefined };
    for (const entry of Object.values(map)) {
      for (const event of worldEvents(entry.state)) {
        for (const step of agentLoopMachine.microstep(entry.state, event, scope as never)) {
          for (const name of stateNames(step.value)) reached.add(name);
        }
      }
    }
    for (const name of [
      "requesting.awaitingResponse",
      "dispatching",
      "appending",
      "done",
      "requesting.pollingInitialSteering",
      "betweenTurns.checkingStop",
      "betweenTurns.pollingSteering",
      "betweenTurns.pollingFollowUp",
      "betweenTurns.preparingNextTurn",
    ]) {
      expect(reached, name).toContain(name);
    }
    const exits = new Set(Object.values(map).map((entry) => entry.state.context.exitReason).filter(Boolean));
    expect([...exits].sort()).toEqual(["aborted", "completed", "error", "maxTurns", "stopped", "terminated"]);
  });
});
