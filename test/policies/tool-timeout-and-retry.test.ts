import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import { agentLoop, LoopInputError, RetryableToolError } from "../../src/index.js";
import type { AgentEvent, AgentTool, ToolResultMessage } from "../../src/types.js";
import { baseConfig, collect, mockStream, trace, user } from "../helpers/mock-stream.js";
import { echoTool, text } from "../helpers/tools.js";

const parameters = Type.Object({});
const results = (messages: unknown[]) => messages.filter((message): message is ToolResultMessage => (message as { role?: string }).role === "toolResult");
const firstText = (result: ToolResultMessage | undefined) => (result?.content[0] as { text?: string } | undefined)?.text;

/** A tool that never resolves; records the signal it got. */
type PolicyFields = Partial<Pick<AgentTool, "name" | "timeoutMs" | "retry" | "replay">>;

function hangingTool(options: PolicyFields = {}) {
  const signals: AbortSignal[] = [];
  const tool: AgentTool<typeof parameters> = {
    name: "hang",
    label: "Hang",
    description: "Never answers",
    parameters,
    execute: (_id, _args, signal) => {
      if (signal) signals.push(signal);
      return new Promise(() => undefined);
    },
    ...options,
  };
  return { tool, signals };
}

/** A tool that throws `failures` errors (retryable unless told otherwise), then succeeds. */
function flakyTool(failures: number, options: PolicyFields & { plainErrors?: boolean } = {}) {
  let runs = 0;
  const { plainErrors, ...rest } = options;
  const tool: AgentTool<typeof parameters> = {
    name: "flaky",
    label: "Flaky",
    description: "Fails, then works",
    parameters,
    replay: "safe",
    retry: { attempts: 3, backoffMs: 1 },
    execute: async () => {
      runs += 1;
      if (runs <= failures) throw plainErrors ? new Error(`plain failure ${runs}`) : new RetryableToolError(`busy ${runs}`);
      return text(`worked on run ${runs}`);
    },
    ...rest,
  };
  return { tool, runs: () => runs };
}

describe("per-tool timeout", () => {
  it("aborts a tool that never resolves at its timeoutMs and gives the model a timed-out error", async () => {
    const { tool, signals } = hangingTool({ timeoutMs: 20 });
    const stream = mockStream([{ calls: [{ id: "h", name: "hang", arguments: {} }] }, { text: "ok, it hung" }]);
    const { events, result } = await collect(agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [tool] }, baseConfig(), undefined, stream));
    expect(signals).toHaveLength(1);
    expect(signals[0]?.aborted).toBe(true);
    const [timedOut] = results(result);
    expect(timedOut?.isError).toBe(true);
    expect(firstText(timedOut)).toBe("Tool hang timed out after 20 ms and was aborted");
    const end = events.find((event) => event.type === "tool_execution_end") as Extract<AgentEvent, { type: "tool_execution_end" }>;
    expect(end.isError).toBe(true);
    expect(events.at(-1)).toMatchObject({ exitReason: "completed" });
    expect(stream.requests).toHaveLength(2);
  });

  it("applies config.toolDefaults.timeoutMs to tools without their own, and a tool's own wins", async () => {
    const slow = hangingTool();
    const own = hangingTool({ name: "own", timeoutMs: 10 });
    const stream = mockStream([{ calls: [{ id: "a", name: "hang", arguments: {} }, { id: "b", name: "own", arguments: {} }] }, { text: "done" }]);
    const { result } = await collect(
      agentLoop(
        [user("go")],
        { systemPrompt: "", messages: [], tools: [slow.tool, own.tool] },
        baseConfig({ toolDefaults: { timeoutMs: 30 } }),
        undefined,
        stream,
      ),
    );
    expect(results(result).map(firstText)).toEqual([
      "Tool hang timed out after 30 ms and was aborted",
      "Tool own timed out after 10 ms and was aborted",
    ]);
  });

  it("leaves a tool that finishes in time alone", async () => {
    const { tool } = echoTool();
    tool.timeoutMs = 5_000;
    const stream = mockStream([{ calls: [{ id: "e", name: "echo", arguments: { text: "hi", delayMs: 5 } }] }, { text: "done" }]);
    const { result } = await collect(
      agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [tool] }, baseConfig(), undefined, stream),
    );
    expect(results(result).map(firstText)).toEqual(["echo: hi"]);
  });
});

describe("per-tool retry", () => {
  it("runs a replay-safe tool that throws a retryable error twice again, and reports only the success", async () => {
    const flaky = flakyTool(2);
    const stream = mockStream([{ calls: [{ id: "f", name: "flaky", arguments: {} }] }, { text: "done" }]);
    const { events, result } = await collect(agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [flaky.tool] }, baseConfig(), undefined, stream));
    expect(flaky.runs()).toBe(3);
    expect(trace(events).filter((entry) => entry.startsWith("tool_execution"))).toEqual(["tool_execution_start:f", "tool_execution_end:f"]);
    const [only] = results(result);
    expect(only?.isError).toBe(false);
    expect(firstText(only)).toBe("worked on run 3");
  });

  it("gives up after `attempts` runs with the last error", async () => {
    const flaky = flakyTool(5, { retry: { attempts: 2 } });
    const stream = mockStream([{ calls: [{ id: "f", name: "flaky", arguments: {} }] }, { text: "done" }]);
    const { result } = await collect(agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [flaky.tool] }, baseConfig(), undefined, stream));
    expect(flaky.runs()).toBe(2);
    expect(results(result)[0]).toMatchObject({ isError: true });
    expect(firstText(results(result)[0])).toBe("busy 2");
  });

  it("never retries an error the tool does not mark retryable", async () => {
    const flaky = flakyTool(1, { plainErrors: true });
    const stream = mockStream([{ calls: [{ id: "f", name: "flaky", arguments: {} }] }, { text: "done" }]);
    const { result } = await collect(agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [flaky.tool] }, baseConfig(), undefined, stream));
    expect(flaky.runs()).toBe(1);
    expect(firstText(results(result)[0])).toBe("plain failure 1");
  });

  it("applies toolDefaults.retry only to replay-safe tools", async () => {
    const safe = flakyTool(1, { retry: undefined });
    const unsafe = flakyTool(1, { name: "unsafe", retry: undefined, replay: "never" });
    const stream = mockStream([{ calls: [{ id: "s", name: "flaky", arguments: {} }, { id: "u", name: "unsafe", arguments: {} }] }, { text: "done" }]);
    const { result } = await collect(
      agentLoop(
        [user("go")],
        { systemPrompt: "", messages: [], tools: [safe.tool, unsafe.tool] },
        baseConfig({ toolDefaults: { retry: { attempts: 2 } } }),
        undefined,
        stream,
      ),
    );
    expect([safe.runs(), unsafe.runs()]).toEqual([2, 1]);
    expect(results(result).map(firstText)).toEqual(["worked on run 2", "busy 1"]);
  });

  it("refuses a tool that declares retry without replay: \"safe\", before the run starts", () => {
    const flaky = flakyTool(1, { replay: "never" });
    expect(() => agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [flaky.tool] }, baseConfig(), undefined, mockStream([]))).toThrow(
      LoopInputError,
    );
    expect(() => agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [flaky.tool] }, baseConfig(), undefined, mockStream([]))).toThrow(
      /replay: "safe"/,
    );
  });

  it("accepts concurrency caps that are integers >= 1 (a tool's concurrency, config.maxParallelCalls) and refuses other values", () => {
    const tool = (concurrency: unknown) => ({ ...flakyTool(0, {}).tool, concurrency });
    const start = (tools: unknown[], config: object) => () =>
      agentLoop([user("go")], { systemPrompt: "", messages: [], tools: tools as never }, baseConfig(config), undefined, mockStream([{ text: "ok" }]));
    expect(start([tool(2)], { maxParallelCalls: 4 })).not.toThrow();
    expect(start([tool(0)], {})).toThrow(/Tool "flaky": concurrency must be an integer >= 1, got the number 0/);
    expect(start([tool(1.5)], {})).toThrow(/Tool "flaky": concurrency must be an integer >= 1/);
    expect(start([], { maxParallelCalls: 0 })).toThrow(/config.maxParallelCalls must be an integer >= 1/);
  });

  it("an abort while waiting to retry ends the call aborted and runs it no more", async () => {
    const flaky = flakyTool(5, { retry: { attempts: 5, backoffMs: 60_000 } });
    const controller = new AbortController();
    const stream = mockStream([{ calls: [{ id: "f", name: "flaky", arguments: {} }] }, { text: "never" }]);
    const run = agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [flaky.tool] }, baseConfig({ abortGraceMs: 10 }), controller.signal, stream);
    const events: AgentEvent[] = [];
    for await (const event of run) {
      events.push(event);
      if (event.type === "tool_execution_start") setTimeout(() => controller.abort(), 20);
    }
    expect(flaky.runs()).toBe(1);
    expect(events.at(-1)).toMatchObject({ exitReason: "aborted" });
    expect(results(await run.result())).toHaveLength(1);
  });
});
