/**
 * Stepping reaches every call wherever the batch keeps it: in slices of a wide
 * parallel batch, and in a capped batch that releases calls as others settle.
 */
import { expect, it } from "vitest";
import { createSteppedRun } from "../../src/index.js";
import { baseConfig, user } from "../helpers/mock-stream.js";
import { echoCall, recordingEcho, turnStream } from "./stepped-support.js";

const emptyContext = { systemPrompt: "", messages: [] };

it("parks every call of a batch wider than one slice, and completes them in the order the test chooses", async () => {
  // 40 calls: more than a machine parents (SLICE_SIZE 32), so the batch runs them in slices.
  const ids = Array.from({ length: 40 }, (_, index) => `c${index}`);
  const { tool, executed } = recordingEcho();
  const run = createSteppedRun({
    prompts: [user("go")],
    context: emptyContext,
    tools: [tool],
    config: baseConfig(),
    streamFn: turnStream([{ calls: ids.map((id) => echoCall(id, id)) }, { text: "done" }]),
  });
  const { pending } = await run.step();
  expect(pending).toEqual(ids.map((id) => ({ kind: "tool", toolCallId: id, toolName: "echo" })));
  for (const id of [...ids].reverse()) await run.step({ toolCallId: id });
  const output = await run.runToCompletion();
  expect(executed).toEqual([...ids].reverse());
  const ends = run.events.flatMap((event) => (event.type === "tool_execution_end" ? [event.toolCallId] : []));
  expect(ends).toEqual([...ids].reverse());
  const results = output.messages.flatMap((message) => (message.role === "toolResult" ? [message.toolCallId] : []));
  expect(results).toEqual(ids);
});

it("parks only the calls a cap lets run, and the next one once a running call settles", async () => {
  const { tool, executed } = recordingEcho();
  const capped: typeof tool = { ...tool, concurrency: 1 };
  const run = createSteppedRun({
    prompts: [user("go")],
    context: emptyContext,
    tools: [capped],
    config: baseConfig(),
    streamFn: turnStream([{ calls: [echoCall("a", "1"), echoCall("b", "2")] }, { text: "done" }]),
  });
  expect((await run.step()).pending).toEqual([{ kind: "tool", toolCallId: "a", toolName: "echo" }]);
  expect((await run.step()).pending).toEqual([{ kind: "tool", toolCallId: "b", toolName: "echo" }]);
  await run.runToCompletion();
  expect(executed).toEqual(["a", "b"]);
});
