/**
 * A listener (`onEvent`) that throws must not change the run: every actor
 * (the loop, the model request, the calls) hands its events over through
 * `heardBy`'s wrapped `emit`, which reports the throw as XState reports a
 * throwing `actor.on` handler — on a later task — and goes on.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { createAgentLoopActor } from "../../src/xstate/index.js";
import type { AgentEvent, AgentMessage } from "../../src/types.js";
import { baseConfig, mockStream, user, type MockResponse } from "../helpers/mock-stream.js";
import { call, tool, withoutClocks } from "./direct-path-harness.js";

class ListenerFault extends Error {}

/** Events the throwing listener throws on: one from each kind of actor (model request, call, loop). */
const THROWS_ON = new Set<AgentEvent["type"]>(["message_update", "tool_execution_start", "turn_end"]);

const responses: MockResponse[] = [{ text: "calling", calls: [call("c1", "a"), call("c2", "b")] }, { text: "done" }];

/** Runs the script with `onEvent`, and resolves with the run's messages once it is done. */
async function runWith(onEvent: (event: AgentEvent) => void): Promise<AgentMessage[]> {
  const actor = createAgentLoopActor({
    prompts: [user("go")],
    context: { systemPrompt: "", messages: [], tools: [tool("echo")] },
    config: baseConfig(),
    streamFn: mockStream(responses),
    onEvent,
  });
  const done = new Promise<void>((resolve) => actor.subscribe({ complete: () => resolve() }));
  actor.start();
  await done;
  return (actor.getSnapshot().output as { messages: AgentMessage[] }).messages;
}

describe("a listener that throws", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("hears every event after its throws, the run ends as with a quiet listener, and each throw is reported on a later task", async () => {
    const quiet: AgentEvent["type"][] = [];
    const quietMessages = await runWith((event) => quiet.push(event.type));

    // Report throws as XState does (a later task), but keep ours out of the test run's unhandled errors.
    const reported: unknown[] = [];
    const original = globalThis.setTimeout;
    vi.spyOn(globalThis, "setTimeout").mockImplementation(((callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) =>
      original(() => {
        try {
          callback(...args);
        } catch (error) {
          if (!(error instanceof ListenerFault)) throw error;
          reported.push(error);
        }
      }, ms)) as typeof setTimeout);

    const heard: AgentEvent["type"][] = [];
    let thrown = 0;
    const messages = await runWith((event) => {
      heard.push(event.type);
      if (THROWS_ON.has(event.type)) {
        thrown += 1;
        throw new ListenerFault(`listener failed on ${event.type}`);
      }
    });
    await new Promise((resolve) => original(resolve, 20));

    expect(heard).toEqual(quiet);
    expect(withoutClocks(messages)).toEqual(withoutClocks(quietMessages));
    for (const type of THROWS_ON) expect(heard).toContain(type);
    expect(thrown).toBeGreaterThan(3);
    expect(reported).toHaveLength(thrown);
  });
});
