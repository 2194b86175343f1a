/**
 * What a stepped run refuses (with a SteppedRunError naming what is pending), and
 * the approvals it waits for.
 */
import { describe, expect, it } from "vitest";
import { createSteppedRun, SteppedRunError } from "../../src/stepped/index.js";
import { baseConfig, user } from "../helpers/mock-stream.js";
import { echoCall, recordingEcho, turnStream, TWO_CALLS } from "./stepped-support.js";

const emptyContext = { systemPrompt: "You echo.", messages: [] };

describe("stepping errors", () => {
  it("names what is pending when a choice matches nothing, and changes nothing", async () => {
    const { tool, executed } = recordingEcho();
    const run = createSteppedRun({ prompts: [user("go")], context: emptyContext, tools: [tool], config: baseConfig(), streamFn: turnStream(TWO_CALLS) });
    await run.step();
    const error = await run.step({ toolCallId: "c" }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(SteppedRunError);
    expect(error).toMatchObject({ reason: "noMatch" });
    expect((error as Error).message).toContain("tool a (echo), tool b (echo)");
    expect(executed).toEqual([]);
    expect(await run.pending()).toHaveLength(2);
  });

  it("refuses a second step while one is under way, a snapshot before the run parked, and a step after the end", async () => {
    let finishTool: () => void = () => undefined;
    const toolMayFinish = new Promise<void>((resolve) => (finishTool = resolve));
    // The tool says when it started (a promise, not a poll bounded by vi.waitFor's 1 s on the wall clock).
    let markStarted: () => void = () => undefined;
    const toolStarted = new Promise<void>((resolve) => (markStarted = resolve));
    const { tool } = recordingEcho();
    const slow: typeof tool = { ...tool, execute: async (...args) => {
      markStarted();
      await toolMayFinish;
      return tool.execute(...args);
    } };
    const run = createSteppedRun({ prompts: [user("go")], context: emptyContext, tools: [slow], config: baseConfig(), streamFn: turnStream([{ calls: [echoCall("a", "x")] }, { text: "done" }]) });
    expect(() => run.snapshot()).toThrow(expect.objectContaining({ reason: "notParked" }));
    await run.step();
    const running = run.step();
    await expect(run.step()).rejects.toMatchObject({ reason: "busy" });
    expect(() => run.snapshot()).toThrow(expect.objectContaining({ reason: "notParked" }));
    await toolStarted;
    finishTool();
    await running;
    await run.runToCompletion();
    await expect(run.step()).rejects.toMatchObject({ reason: "finished" });
    // The final snapshot is there to take.
    expect(run.snapshot()).toMatchObject({ status: "done" });
  });
});

describe("approval while stepping", () => {
  it("lists calls waiting for approval, refuses to step them, and goes on after approve / reject", async () => {
    const { tool, executed } = recordingEcho();
    const asking: typeof tool = { ...tool, needsApproval: true };
    const run = createSteppedRun({ prompts: [user("go")], context: emptyContext, tools: [asking], config: baseConfig(), streamFn: turnStream(TWO_CALLS) });
    await run.step();
    expect(await run.pending()).toEqual([
      { kind: "approval", toolCallId: "a", toolName: "echo" },
      { kind: "approval", toolCallId: "b", toolName: "echo" },
    ]);
    await expect(run.step()).rejects.toMatchObject({ reason: "awaitingDecision" });
    await expect(run.runToCompletion()).rejects.toMatchObject({ reason: "awaitingDecision" });
    expect(await run.approve("b")).toEqual([
      { kind: "tool", toolCallId: "b", toolName: "echo" },
      { kind: "approval", toolCallId: "a", toolName: "echo" },
    ]);
    await expect(run.approve("b")).rejects.toMatchObject({ name: "ApprovalError" });
    expect(await run.reject("a", "not now")).toEqual([{ kind: "tool", toolCallId: "b", toolName: "echo" }]);
    const output = await run.runToCompletion();
    expect(executed).toEqual(["b"]);
    expect(output.exitReason).toBe("completed");
    const rejected = output.messages.find((message) => message.role === "toolResult" && message.toolCallId === "a");
    expect(rejected).toMatchObject({ isError: true });
  });
});

describe("bad input", () => {
  it("throws at once for options that are not a run's, naming what was expected", () => {
    expect(() => createSteppedRun(undefined as never)).toThrow(expect.objectContaining({ name: "LoopInputError", message: expect.stringContaining("createSteppedRun takes") }));
    expect(() => createSteppedRun({ context: emptyContext, config: baseConfig(), tools: "echo" as never })).toThrow(/tools must be an array/);
    expect(() => createSteppedRun({ context: { systemPrompt: "", messages: "none" as never }, config: baseConfig() })).toThrow(/context.messages must be an array/);
  });

  it("refuses a choice that is not an EffectChoice instead of stepping whatever is first", async () => {
    const { tool, executed } = recordingEcho();
    const run = createSteppedRun({ prompts: [user("go")], context: emptyContext, tools: [tool], config: baseConfig(), streamFn: turnStream(TWO_CALLS) });
    await expect(run.step("b" as never)).rejects.toThrow(/takes an object/);
    await expect(run.step({ toolCallID: "b" } as never)).rejects.toThrow(/not toolCallID/);
    await expect(run.step({ kind: "tools" } as never)).rejects.toThrow(/kind is "request"/);
    expect(await run.pending()).toEqual([{ kind: "request", turn: 1 }]);
    expect(executed).toEqual([]);
  });
});

it("answers a pending() awaited beside a step once the step is done", async () => {
  const { tool } = recordingEcho();
  const run = createSteppedRun({ prompts: [user("go")], context: emptyContext, tools: [tool], config: baseConfig(), streamFn: turnStream(TWO_CALLS) });
  await run.pending();
  const [stepped, pending] = await Promise.all([run.step(), run.pending()]);
  expect(stepped.performed).toEqual({ kind: "request", turn: 1 });
  // Both waited for the same boundary: the one after the request (before this fix the step never woke).
  expect(pending).toEqual(stepped.pending);
  expect(pending.map((effect) => effect.kind)).toEqual(["tool", "tool"]);
});
