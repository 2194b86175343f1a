/**
 * "Crash here" through a durable session: the snapshot a stepped run gives is the
 * record's snapshot a session saves, and `Agent.resume` continues from it. A call
 * parked before its tool has no start record, so even a `replay: "never"` tool
 * just runs on resume.
 */
import { expect, it } from "vitest";
import { Agent, createSteppedRun, JsonlSessionStore } from "../../src/index.js";
import { testModel, user } from "../helpers/mock-stream.js";
import { tempDir } from "../support/temp-dir.js";
import { sampleRecord } from "../sessions/store-fixtures.js";
import { recordingEcho, shape, turnStream, TWO_CALLS, withoutClocks } from "./stepped-support.js";

it("resumes a session saved from a stepped run's snapshot between two tools, as the uninterrupted run ends", async () => {
  const systemPrompt = "be brief";
  const passThrough = (messages: unknown[]) => messages as never;
  const run = createSteppedRun({
    prompts: [user("go")],
    context: { systemPrompt, messages: [] },
    tools: [recordingEcho().tool],
    config: { model: testModel, convertToLlm: passThrough },
    streamFn: turnStream(TWO_CALLS),
  });
  await run.step();
  await run.step({ toolCallId: "b" });
  const snapshot = run.snapshot();
  const uninterrupted = await run.runToCompletion();

  const store = new JsonlSessionStore(await tempDir("loopchart-stepped-session-"));
  await store.save("crash-here", { record: sampleRecord("crash-here", { turns: 1, snapshot }), firstIndex: 0, messages: [] });
  const elsewhere = recordingEcho();
  const resumed = await Agent.resume(store, "crash-here", { initialState: { tools: [elsewhere.tool] }, streamFn: turnStream(TWO_CALLS), convertToLlm: passThrough });
  await resumed.waitForIdle();

  expect(elsewhere.executed).toEqual(["a"]);
  expect(shape(resumed.state.messages)).toEqual(["user", "assistant", "toolResult:a", "toolResult:b", "assistant"]);
  expect(withoutClocks(resumed.state.messages)).toEqual(withoutClocks(uninterrupted.messages));
  expect((await store.load("crash-here"))?.record.state).toBe("done");
});
