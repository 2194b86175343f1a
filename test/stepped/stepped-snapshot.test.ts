/**
 * "Crash here": the snapshot a stepped run gives at a boundary is the persisted
 * snapshot of the shipped chart; restored in a fresh actor (with or without
 * stepping) it performs the parked effects and ends as the uninterrupted run did.
 */
import { describe, expect, it } from "vitest";
import type { Snapshot } from "xstate";
import { createAgentLoopActor, createSteppedRun, describeEffect, type AgentLoopOutput, type CreateSteppedRunOptions } from "../../src/index.js";
import type { AgentEvent, AgentLoopConfig } from "../../src/types.js";
import { baseConfig, user } from "../helpers/mock-stream.js";
import { protocol, recordingEcho, turnStream, TWO_CALLS, withoutClocks } from "./stepped-support.js";

const emptyContext = { systemPrompt: "You echo.", messages: [] };

/** Restores `snapshot` in a fresh loop actor (not stepped) and runs it to its end. */
function restoreAndFinish(snapshot: Snapshot<unknown>, options: Omit<CreateSteppedRunOptions, "snapshot">): Promise<{ output: AgentLoopOutput; events: AgentEvent[] }> {
  const events: AgentEvent[] = [];
  const actor = createAgentLoopActor({
    context: { ...options.context, tools: options.tools },
    config: options.config,
    ...(options.streamFn ? { streamFn: options.streamFn } : {}),
    snapshot: JSON.parse(JSON.stringify(snapshot)) as Snapshot<unknown>,
    onEvent: (event) => events.push(event),
  });
  return new Promise((resolve, reject) => {
    actor.subscribe({ complete: () => resolve({ output: actor.getSnapshot().output as AgentLoopOutput, events }), error: reject });
    actor.start();
  });
}

describe("a snapshot between the two tools of a parallel batch", () => {
  it("restores in a fresh actor and finishes with the uninterrupted run's transcript", async () => {
    const original = recordingEcho();
    const run = createSteppedRun({ prompts: [user("go")], context: emptyContext, tools: [original.tool], config: baseConfig(), streamFn: turnStream(TWO_CALLS) });
    await run.step();
    await run.step({ toolCallId: "b" });
    const snapshot = run.snapshot();
    const eventsBefore = run.events.length;
    // A snapshot taken is plain JSON and is not changed by what the run does next.
    const frozen = JSON.stringify(snapshot);
    await run.runToCompletion();
    expect(JSON.stringify(snapshot)).toBe(frozen);
    const uninterrupted = await run.result();

    const elsewhere = recordingEcho();
    const stream = turnStream(TWO_CALLS);
    const restored = await restoreAndFinish(snapshot, { context: emptyContext, tools: [elsewhere.tool], config: baseConfig(), streamFn: stream });
    // Only the parked call runs again; the settled one never does; the model is asked once more, for turn 2.
    expect(elsewhere.executed).toEqual(["a"]);
    expect(stream.requests()).toBe(1);
    expect(restored.output.exitReason).toBe("completed");
    expect(withoutClocks(restored.output.messages)).toEqual(withoutClocks(uninterrupted.messages));
    // Nothing is re-emitted: the restored run's events are the rest of the uninterrupted run's.
    expect(protocol(restored.events)).toEqual(protocol(run.events.slice(eventsBefore)));
  });

  it("restores into another stepped run, parked before the same tool", async () => {
    const first = createSteppedRun({ prompts: [user("go")], context: emptyContext, tools: [recordingEcho().tool], config: baseConfig(), streamFn: turnStream(TWO_CALLS) });
    await first.step();
    await first.step({ toolCallId: "b" });
    const snapshot = first.snapshot();
    await first.runToCompletion();

    const elsewhere = recordingEcho();
    const resumed = createSteppedRun({ context: emptyContext, tools: [elsewhere.tool], config: baseConfig(), streamFn: turnStream(TWO_CALLS), snapshot });
    expect(await resumed.pending()).toEqual([{ kind: "tool", toolCallId: "a", toolName: "echo" }]);
    expect(resumed.events).toEqual([]);
    expect(elsewhere.executed).toEqual([]);
    await resumed.runToCompletion();
    expect(elsewhere.executed).toEqual(["a"]);
    expect(withoutClocks((await resumed.result()).messages)).toEqual(withoutClocks((await first.result()).messages));
  });
});

describe("a snapshot at every boundary", () => {
  // Stateless hooks, so a restored run asks them what the original did.
  const config = (): AgentLoopConfig =>
    baseConfig({
      getSteeringMessages: async () => [],
      getFollowUpMessages: async () => [],
      shouldStopAfterTurn: async () => false,
      prepareNextTurn: async () => undefined,
      beforeToolCall: async ({ toolCall }) => (toolCall.id === "b" ? { block: true, reason: "not b" } : undefined),
      afterToolCall: async ({ result }) => ({ content: [...result.content, { type: "text", text: " (checked)" }] }),
    });

  it("restores at each one and ends as the uninterrupted run did", async () => {
    const run = createSteppedRun({ prompts: [user("go")], context: emptyContext, tools: [recordingEcho().tool], config: config(), streamFn: turnStream(TWO_CALLS) });
    const boundaries: { before: string; snapshot: Snapshot<unknown> }[] = [];
    for (let pending = await run.pending(); pending.length > 0; pending = await run.pending()) {
      boundaries.push({ before: pending.map(describeEffect).join(" | "), snapshot: run.snapshot() });
      await run.step();
    }
    const uninterrupted = await run.result();
    expect(uninterrupted.exitReason).toBe("completed");
    expect(boundaries.map((boundary) => boundary.before)).toEqual([
      "hook getSteeringMessages",
      "request (turn 1)",
      "hook beforeToolCall (a)",
      "hook beforeToolCall (b)",
      "tool a (echo)",
      "hook afterToolCall (a)",
      "hook shouldStopAfterTurn",
      "hook getSteeringMessages",
      "hook prepareNextTurn",
      "request (turn 2)",
      "hook shouldStopAfterTurn",
      "hook getSteeringMessages",
      "hook getFollowUpMessages",
    ]);
    for (const boundary of boundaries) {
      const restored = await restoreAndFinish(boundary.snapshot, { context: emptyContext, tools: [recordingEcho().tool], config: config(), streamFn: turnStream(TWO_CALLS) });
      expect({ at: boundary.before, messages: withoutClocks(restored.output.messages) }).toEqual({ at: boundary.before, messages: withoutClocks(uninterrupted.messages) });
    }
  });
});
