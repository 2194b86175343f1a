/**
 * A stepped run parks before every hook call: the loop's hooks as actors of the
 * chart, and with `requestHooks: true` the hooks a model request calls.
 */
import { describe, expect, it } from "vitest";
import { createSteppedRun, describeEffect, type PendingEffect } from "../../src/index.js";
import { baseConfig, user } from "../helpers/mock-stream.js";
import { recordingEcho, shape, turnStream, TWO_CALLS, withoutClocks } from "./stepped-support.js";

const emptyContext = { systemPrompt: "You echo.", messages: [] };

describe("stepping hooks", () => {
  it("parks before each hook call, and a hook is not called before its step", async () => {
    const { tool } = recordingEcho();
    const calls: string[] = [];
    const hooked = <T>(name: string, value: T) => async () => {
      calls.push(name);
      return value;
    };
    const run = createSteppedRun({
      prompts: [user("go")],
      context: emptyContext,
      tools: [tool],
      streamFn: turnStream(TWO_CALLS),
      config: baseConfig({
        getSteeringMessages: hooked("getSteeringMessages", []),
        getFollowUpMessages: hooked("getFollowUpMessages", []),
        shouldStopAfterTurn: hooked("shouldStopAfterTurn", false),
        prepareNextTurn: hooked("prepareNextTurn", undefined),
        prepareRequest: hooked("prepareRequest", undefined),
        beforeToolCall: hooked("beforeToolCall", undefined),
        afterToolCall: hooked("afterToolCall", undefined),
      }),
    });
    const performed: PendingEffect[] = [];
    for (;;) {
      const pending = await run.pending();
      if (pending.length === 0) break;
      const before = calls.length;
      const { performed: effect } = await run.step();
      performed.push(effect);
      // The step called exactly the hook it named (and no other), and only then.
      expect(calls.slice(before)).toEqual(effect.kind === "hook" ? [effect.name] : []);
    }
    expect(performed.map(describeEffect)).toEqual([
      "hook getSteeringMessages",
      "hook prepareRequest",
      "request (turn 1)",
      // With beforeToolCall the calls are prepared one at a time, in source order.
      "hook beforeToolCall (a)",
      "hook beforeToolCall (b)",
      "tool a (echo)",
      "tool b (echo)",
      "hook afterToolCall (a)",
      "hook afterToolCall (b)",
      "hook shouldStopAfterTurn",
      "hook getSteeringMessages",
      "hook prepareNextTurn",
      "hook prepareRequest",
      "request (turn 2)",
      "hook shouldStopAfterTurn",
      "hook getSteeringMessages",
      "hook getFollowUpMessages",
    ]);
    expect((await run.result()).exitReason).toBe("completed");
  });

  it("runs a step's hook answer through the chart: steering messages start another turn", async () => {
    let steer = 0;
    const run = createSteppedRun({
      prompts: [user("go")],
      context: emptyContext,
      streamFn: turnStream([{ text: "one" }, { text: "two" }]),
      config: baseConfig({ getSteeringMessages: async () => (++steer === 2 ? [user("also this")] : []) }),
    });
    expect(await run.pending()).toEqual([{ kind: "hook", name: "getSteeringMessages" }]);
    await run.step();
    await run.step({ kind: "request" });
    const steered = await run.step({ kind: "hook", name: "getSteeringMessages" });
    expect(steered.pending).toEqual([{ kind: "request", turn: 2 }]);
    await run.runToCompletion();
    expect(shape((await run.result()).messages)).toEqual(["user", "assistant", "user", "assistant"]);
  });
});

describe("stepping the hooks inside a request (requestHooks: true)", () => {
  it("parks before transformContext, convertToLlm and getApiKey, each called only at its step", async () => {
    const called: string[] = [];
    const stream = turnStream([{ text: "hi" }]);
    const run = createSteppedRun({
      prompts: [user("go")],
      context: emptyContext,
      streamFn: stream,
      requestHooks: true,
      config: baseConfig({
        transformContext: async (messages) => (called.push("transformContext"), messages),
        convertToLlm: (messages) => (called.push("convertToLlm"), messages as never),
        getApiKey: () => (called.push("getApiKey"), "key"),
      }),
    });
    const performed: string[] = [];
    for (let pending = await run.pending(); pending.length > 0; pending = await run.pending()) {
      performed.push(describeEffect((await run.step()).performed));
      expect(called).toEqual(performed.filter((name) => name.startsWith("hook ")).map((name) => name.slice("hook ".length)));
    }
    expect(performed).toEqual(["request (turn 1)", "hook transformContext", "hook convertToLlm", "hook getApiKey"]);
    expect(stream.requests()).toBe(1);
    expect((await run.result()).exitReason).toBe("completed");
  });

  it("restores a snapshot taken inside the request by requesting again from transformContext on", async () => {
    const config = () => baseConfig({ transformContext: async (messages) => messages });
    const run = createSteppedRun({ prompts: [user("go")], context: emptyContext, streamFn: turnStream([{ text: "hi" }]), requestHooks: true, config: config() });
    await run.step();
    expect(await run.pending()).toEqual([{ kind: "hook", name: "transformContext" }]);
    await run.step();
    expect(await run.pending()).toEqual([{ kind: "hook", name: "convertToLlm" }]);
    const snapshot = run.snapshot();
    await run.runToCompletion();
    const again = createSteppedRun({ context: emptyContext, streamFn: turnStream([{ text: "hi" }]), requestHooks: true, config: config(), snapshot });
    // The request was in flight: restored, it parks as a request again, then before its hooks from the first on.
    expect(await again.pending()).toEqual([{ kind: "request", turn: 1 }]);
    expect((await again.step()).pending).toEqual([{ kind: "hook", name: "transformContext" }]);
    await again.runToCompletion();
    expect(withoutClocks((await again.result()).messages)).toEqual(withoutClocks((await run.result()).messages));
  });

  it("still refuses a config whose convertToLlm is not a function", () => {
    expect(() => createSteppedRun({ prompts: [user("go")], context: emptyContext, requestHooks: true, config: { ...baseConfig(), convertToLlm: "no" as never } })).toThrow(/convertToLlm/);
  });
});
