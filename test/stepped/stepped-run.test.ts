/**
 * A stepped run parks before every effect of the shipped chart: a test chooses
 * which effect happens next, and gets the event protocol an agentLoop run with
 * that completion order gives.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { agentLoop, createSteppedRun, describeEffect } from "../../src/index.js";
import type { AgentEvent } from "../../src/types.js";
import { baseConfig, collect, user } from "../helpers/mock-stream.js";
import { protocol, recordingEcho, shape, turnStream, TWO_CALLS, withoutClocks } from "./stepped-support.js";

const emptyContext = { systemPrompt: "You echo.", messages: [] };

/** pi's agentLoop protocol for one parallel batch of calls a, b where b completes first. */
const PI_REVERSE_ORDER = [
  "agent_start",
  "turn_start",
  "message_start:user",
  "message_end:user",
  "message_start:assistant",
  "message_end:assistant",
  "tool_execution_start:a",
  "tool_execution_start:b",
  // Parallel calls end in completion order...
  "tool_execution_end:b",
  "tool_execution_end:a",
  // ...and their results are appended in source order, after the last end.
  "message_start:toolResult:a",
  "message_end:toolResult:a",
  "message_start:toolResult:b",
  "message_end:toolResult:b",
  "turn_end",
  "turn_start",
  "message_start:assistant",
  "message_end:assistant",
  "turn_end",
  "agent_end:completed",
];

describe("a stepped run of a parallel batch", () => {
  it("lets a test complete the two calls in reverse order and emits pi's event sequence", async () => {
    const { tool, executed } = recordingEcho();
    const stream = turnStream(TWO_CALLS);
    const run = createSteppedRun({ prompts: [user("go")], context: emptyContext, tools: [tool], config: baseConfig(), streamFn: stream });

    expect(await run.pending()).toEqual([{ kind: "request", turn: 1 }]);
    expect(stream.requests()).toBe(0);
    const requested = await run.step();
    expect(requested.performed).toEqual({ kind: "request", turn: 1 });
    expect(stream.requests()).toBe(1);
    // Both calls started and parked before their tools: nothing executed yet.
    expect(requested.pending).toEqual([
      { kind: "tool", toolCallId: "a", toolName: "echo" },
      { kind: "tool", toolCallId: "b", toolName: "echo" },
    ]);
    expect(executed).toEqual([]);

    const second = await run.step({ toolCallId: "b" });
    expect(protocol(second.events)).toEqual(["tool_execution_end:b"]);
    expect(second.pending).toEqual([{ kind: "tool", toolCallId: "a", toolName: "echo" }]);
    const first = await run.step({ toolCallId: "a" });
    expect(first.pending).toEqual([{ kind: "request", turn: 2 }]);
    await run.step();

    expect(run.done).toBe(true);
    expect(executed).toEqual(["b", "a"]);
    expect(protocol(run.events)).toEqual(PI_REVERSE_ORDER);
    const output = await run.result();
    expect(output.exitReason).toBe("completed");
    expect(shape(output.messages)).toEqual(["user", "assistant", "toolResult:a", "toolResult:b", "assistant"]);
  });

  it("emits what agentLoop emits when the second call finishes first on its own", async () => {
    let releaseA: () => void = () => undefined;
    const aMayFinish = new Promise<void>((resolve) => (releaseA = resolve));
    const { tool } = recordingEcho();
    const slowA: typeof tool = { ...tool, execute: async (id, args, signal, onUpdate) => {
      if (id === "a") await aMayFinish;
      return tool.execute(id, args, signal, onUpdate);
    } };
    const plain = agentLoop([user("go")], { ...emptyContext, tools: [slowA] }, baseConfig(), undefined, turnStream(TWO_CALLS));
    const seen: AgentEvent[] = [];
    for await (const event of plain) {
      seen.push(event);
      if (event.type === "tool_execution_end" && event.toolCallId === "b") releaseA();
    }

    const stepped = createSteppedRun({ prompts: [user("go")], context: emptyContext, tools: [recordingEcho().tool], config: baseConfig(), streamFn: turnStream(TWO_CALLS) });
    await stepped.step();
    await stepped.step({ toolCallId: "b" });
    await stepped.runToCompletion();

    expect(protocol(stepped.events)).toEqual(protocol(seen));
    expect(protocol(seen)).toEqual(PI_REVERSE_ORDER);
    expect(withoutClocks((await stepped.result()).messages)).toEqual(withoutClocks(await plain.result()));
  });

  it("completes the calls in source order when the test steps them so", async () => {
    const { tool, executed } = recordingEcho();
    const run = createSteppedRun({ prompts: [user("go")], context: emptyContext, tools: [tool], config: baseConfig(), streamFn: turnStream(TWO_CALLS) });
    await run.step();
    await run.step({ toolCallId: "a" });
    await run.step({ toolCallId: "b" });
    await run.runToCompletion();
    expect(executed).toEqual(["a", "b"]);
    const ends = protocol(run.events).filter((entry) => entry.startsWith("tool_execution_end"));
    expect(ends).toEqual(["tool_execution_end:a", "tool_execution_end:b"]);
  });
});

describe("determinism", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Runs the same script with the same choices; the clock is frozen, so the runs may differ only if the stepping does. */
  async function steppedTranscript(order: ("a" | "b")[]) {
    const { tool } = recordingEcho();
    const run = createSteppedRun({
      prompts: [user("go")],
      context: emptyContext,
      tools: [tool],
      config: baseConfig({ getSteeringMessages: async () => [], afterToolCall: async ({ result }) => ({ details: { checked: result.content.length } }) }),
      streamFn: turnStream(TWO_CALLS),
    });
    const choices: string[] = [];
    for (;;) {
      const pending = await run.pending();
      if (pending.length === 0) break;
      const wanted = order.find((id) => pending.some((effect) => effect.kind === "tool" && effect.toolCallId === id));
      const outcome = await run.step(wanted !== undefined ? { kind: "tool", toolCallId: wanted } : {});
      choices.push(describeEffect(outcome.performed));
      if (wanted !== undefined) order = order.filter((id) => id !== wanted);
    }
    return { events: JSON.stringify(run.events), messages: JSON.stringify((await run.result()).messages), choices };
  }

  it("gives the same events and transcript, byte for byte, for the same choices", async () => {
    vi.useFakeTimers({ toFake: ["Date", "performance"], now: new Date("2026-01-01T00:00:00Z") });
    const first = await steppedTranscript(["b", "a"]);
    const second = await steppedTranscript(["b", "a"]);
    expect(second).toEqual(first);
    expect(first.choices).toEqual([
      "hook getSteeringMessages",
      "request (turn 1)",
      "tool b (echo)",
      "tool a (echo)",
      "hook afterToolCall (b)",
      "hook afterToolCall (a)",
      "hook getSteeringMessages",
      "request (turn 2)",
      "hook getSteeringMessages",
    ]);
    // Another order is another run: the events differ, the transcript (results in source order) does not.
    const other = await steppedTranscript(["a", "b"]);
    expect(other.events).not.toEqual(first.events);
    expect(other.messages).toEqual(first.messages);
  });
});

it("steps a sequential batch one call at a time: only the next call is ever parked", async () => {
  const { tool, executed } = recordingEcho();
  const run = createSteppedRun({ prompts: [user("go")], context: emptyContext, tools: [tool], config: baseConfig({ toolExecution: "sequential" }), streamFn: turnStream(TWO_CALLS) });
  expect((await run.step()).pending).toEqual([{ kind: "tool", toolCallId: "a", toolName: "echo" }]);
  await expect(run.step({ toolCallId: "b" })).rejects.toMatchObject({ reason: "noMatch" });
  const first = await run.step();
  expect(protocol(first.events)).toEqual(["tool_execution_end:a", "message_start:toolResult:a", "message_end:toolResult:a", "tool_execution_start:b"]);
  await run.runToCompletion();
  expect(executed).toEqual(["a", "b"]);
  // Compared with a run not stepped.
  const plain = await collect(agentLoop([user("go")], { ...emptyContext, tools: [recordingEcho().tool] }, baseConfig({ toolExecution: "sequential" }), undefined, turnStream(TWO_CALLS)));
  expect(protocol(run.events)).toEqual(protocol(plain.events));
});
