/**
 * pi-agent-core 1.x's additions to a tool call's outcome, as loopchart emits them:
 * `durationMs` on `tool_execution_end` and on the result message; results with
 * `isError`, `structuredContent`, `usage`, `terminate`, `addedToolNames`; a tool's
 * `outputSchema` and `executionMode`; `afterToolCall`'s field-wise overrides.
 */
import { describe, expect, it } from "vitest";
import { Type } from "typebox";
import { agentLoop } from "../../src/index.js";
import type { AfterToolCallResult, AgentEvent, AgentTool, AgentToolResult, ToolResultMessage } from "../../src/types.js";
import { runsSequentially } from "../../machines/loop-context.js";
import { baseConfig, collect, mockStream, user } from "../helpers/mock-stream.js";
import { text } from "../helpers/tools.js";

const noParameters = Type.Object({});

function tool(
  name: string,
  execute: AgentTool<typeof noParameters>["execute"],
  extra: Pick<AgentTool, "outputSchema" | "executionMode"> = {},
): AgentTool<typeof noParameters> {
  return { name, label: name, description: name, parameters: noParameters, execute, ...extra };
}

async function runCalls(tools: AgentTool[], calls: { id: string; name: string; arguments?: Record<string, unknown> }[], config = baseConfig()) {
  const stream = mockStream([{ calls: calls.map((call) => ({ arguments: {}, ...call })) }, { text: "done" }]);
  const { events, result } = await collect(agentLoop([user("go")], { systemPrompt: "", messages: [], tools }, config, undefined, stream));
  const ends = new Map(
    events
      .filter((event): event is Extract<AgentEvent, { type: "tool_execution_end" }> => event.type === "tool_execution_end")
      .map((event) => [event.toolCallId, event]),
  );
  const results = new Map(
    result.filter((m): m is ToolResultMessage => (m as { role: string }).role === "toolResult").map((m) => [m.toolCallId, m]),
  );
  return { events, result, ends, results, stream };
}

/** Spins on the monotonic clock for at least `ms` milliseconds. */
function spin(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy: the point is time passing on the same clock the loop reads
  }
}

describe("durationMs (pi-agent-core 1.x)", () => {
  it("reports how long execute took, on tool_execution_end and on the result message, bounded by what the caller measured", async () => {
    const outer: { start?: number; end?: number } = {};
    const slow = tool("slow", async () => {
      outer.start = performance.now();
      spin(6);
      outer.end = performance.now();
      return text("ok");
    });
    const before = performance.now();
    const { ends, results } = await runCalls([slow], [{ id: "c1", name: "slow" }]);
    const after = performance.now();
    const end = ends.get("c1");
    expect(end?.durationMs).toBeTypeOf("number");
    // The tool spun for at least 6 ms inside execute, and execute ran within the run.
    expect(end?.durationMs).toBeGreaterThanOrEqual(6);
    expect(end?.durationMs).toBeLessThanOrEqual(Math.ceil(after - before));
    expect(Number.isInteger(end?.durationMs)).toBe(true);
    expect(results.get("c1")?.durationMs).toBe(end?.durationMs);
  });

  it("is measured for a tool that throws and for one whose result is malformed", async () => {
    const throws = tool("throws", async () => {
      spin(2);
      throw new Error("boom");
    });
    const malformed = tool("malformed", async () => "not a result" as unknown as AgentToolResult<unknown>);
    const { ends } = await runCalls([throws, malformed], [
      { id: "t", name: "throws" },
      { id: "m", name: "malformed" },
    ]);
    expect(ends.get("t")).toMatchObject({ isError: true });
    expect(ends.get("t")?.durationMs).toBeGreaterThanOrEqual(2);
    expect(ends.get("m")).toMatchObject({ isError: true });
    expect(ends.get("m")?.durationMs).toBeTypeOf("number");
  });

  it("is absent when the tool did not run: unknown tool, invalid arguments, blocked, length-truncated", async () => {
    const strict = { ...tool("strict", async () => text("ran")), parameters: Type.Object({ n: Type.Number() }) } as AgentTool;
    const blockedTool = tool("gated", async () => text("ran"));
    const config = baseConfig({
      beforeToolCall: async ({ toolCall }) => (toolCall.name === "gated" ? { block: true } : undefined),
    });
    const { ends, results } = await runCalls(
      [strict, blockedTool],
      [
        { id: "u", name: "unknown" },
        { id: "i", name: "strict", arguments: { n: "not a number" } },
        { id: "b", name: "gated" },
      ],
      config,
    );
    for (const id of ["u", "i", "b"]) {
      expect(ends.get(id)?.isError).toBe(true);
      expect(ends.get(id)).not.toHaveProperty("durationMs");
      expect(results.get(id)).not.toHaveProperty("durationMs");
    }

    const truncated = mockStream([{ calls: [{ id: "x", name: "strict", arguments: { n: 1 } }], stopReason: "length" }, { text: "done" }]);
    const run = await collect(agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [strict] }, baseConfig(), undefined, truncated));
    const end = run.events.find((event) => event.type === "tool_execution_end");
    expect(end).toMatchObject({ isError: true });
    expect(end).not.toHaveProperty("durationMs");
  });

  it("keeps the tool's duration through afterToolCall (the hook's time is not the tool's)", async () => {
    const quick = tool("quick", async () => text("ok"));
    let hookStartedAt = 0;
    const config = baseConfig({
      afterToolCall: async () => {
        hookStartedAt = performance.now();
        spin(30);
        return { content: [{ type: "text", text: "rewritten" }] };
      },
    });
    const before = performance.now();
    const { ends } = await runCalls([quick], [{ id: "q", name: "quick" }], config);
    const durationMs = ends.get("q")?.durationMs;
    expect(durationMs).toBeTypeOf("number");
    // execute ended before the hook began; counting the hook's 30 ms would exceed this bound.
    expect(durationMs).toBeLessThanOrEqual(Math.ceil(hookStartedAt - before));
    expect(ends.get("q")?.result.content).toEqual([{ type: "text", text: "rewritten" }]);
  });
});

describe("tool results (pi-agent-core 1.x)", () => {
  it("isError reports a failure without throwing: the model reads an error result, details and structuredContent are kept", async () => {
    const soft = tool("soft", async () => ({
      content: [{ type: "text", text: "disk full" }],
      details: { code: 28 },
      structuredContent: { ok: false, code: 28 },
      isError: true,
    }));
    const { ends, results } = await runCalls([soft], [{ id: "s", name: "soft" }]);
    expect(ends.get("s")).toMatchObject({ isError: true, result: { details: { code: 28 }, structuredContent: { ok: false, code: 28 } } });
    expect(results.get("s")).toMatchObject({ isError: true, details: { code: 28 }, content: [{ type: "text", text: "disk full" }] });
  });

  it("a non-boolean isError or malformed addedToolNames becomes an error result naming the field", async () => {
    const badFlag = tool("badflag", async () => ({ ...text("x"), isError: "yes" }) as unknown as AgentToolResult<unknown>);
    const badNames = tool("badnames", async () => ({ ...text("x"), addedToolNames: "read" }) as unknown as AgentToolResult<unknown>);
    const { results } = await runCalls([badFlag, badNames], [
      { id: "f", name: "badflag" },
      { id: "n", name: "badnames" },
    ]);
    expect(results.get("f")?.isError).toBe(true);
    expect(JSON.stringify(results.get("f")?.content)).toContain("isError");
    expect(results.get("n")?.isError).toBe(true);
    expect(JSON.stringify(results.get("n")?.content)).toContain("addedToolNames");
  });

  it("structuredContent reaches tool_execution_end but never the toolResult message or the model", async () => {
    const rich = tool("rich", async () => ({ ...text("3 rows"), structuredContent: { marker: "STRUCTURED-ONLY", rows: 3 } }));
    const { ends, results, stream } = await runCalls([rich], [{ id: "r", name: "rich" }]);
    expect(ends.get("r")?.result.structuredContent).toEqual({ marker: "STRUCTURED-ONLY", rows: 3 });
    expect(results.get("r")).not.toHaveProperty("structuredContent");
    expect(stream.requests).toHaveLength(2);
    expect(JSON.stringify(stream.requests[1]?.context)).not.toContain("STRUCTURED-ONLY");
  });

  it("structuredContent that is not plain JSON data becomes an error result", async () => {
    const dated = tool("dated", async () => ({ ...text("x"), structuredContent: { when: new Date(0) } }) as unknown as AgentToolResult<unknown>);
    const { results } = await runCalls([dated], [{ id: "d", name: "dated" }]);
    expect(results.get("d")?.isError).toBe(true);
    expect(JSON.stringify(results.get("d")?.content)).toContain("structuredContent.when");
  });

  it("usage and addedToolNames are carried to the toolResult message", async () => {
    const toolUsage = { input: 7, output: 3, cacheRead: 0, cacheWrite: 0, totalTokens: 10, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.01 } };
    const discover = tool("discover", async () => ({ ...text("found grep"), usage: toolUsage, addedToolNames: ["grep"] }));
    const { results, ends } = await runCalls([discover], [{ id: "d", name: "discover" }]);
    expect(results.get("d")).toMatchObject({ usage: toolUsage, addedToolNames: ["grep"], isError: false });
    expect(ends.get("d")?.result).toMatchObject({ usage: toolUsage, addedToolNames: ["grep"] });
  });

  it("terminate on a result that reports isError still ends the run after the batch", async () => {
    const stop = tool("stop", async () => ({ ...text("giving up"), isError: true, terminate: true }));
    const stream = mockStream([{ calls: [{ id: "s", name: "stop", arguments: {} }] }, { text: "never asked" }]);
    const { events } = await collect(agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [stop] }, baseConfig(), undefined, stream));
    expect(stream.requests).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: "agent_end", exitReason: "terminated" });
  });
});

describe("outputSchema (pi-agent-core 1.x)", () => {
  const outputSchema = {
    type: "object",
    properties: { rows: { type: "integer" }, names: { type: "array", items: { type: "string" } } },
    required: ["rows"],
  };

  it("passes a result whose structuredContent matches", async () => {
    const good = tool("good", async () => ({ ...text("ok"), structuredContent: { rows: 2, names: ["a", "b"] } }), { outputSchema });
    const { results, ends } = await runCalls([good], [{ id: "g", name: "good" }]);
    expect(results.get("g")?.isError).toBe(false);
    expect(ends.get("g")?.result.structuredContent).toEqual({ rows: 2, names: ["a", "b"] });
  });

  it("turns a mismatch into an error result naming the tool and every failing path", async () => {
    const bad = tool("bad", async () => ({ ...text("ok"), details: { kept: true }, structuredContent: { rows: "two", names: [1] } }), { outputSchema });
    const { results, ends } = await runCalls([bad], [{ id: "b", name: "bad" }]);
    const message = results.get("b");
    expect(message?.isError).toBe(true);
    const said = message?.content.map((block) => (block.type === "text" ? block.text : "")).join("") ?? "";
    expect(said).toContain('Tool "bad"');
    expect(said).toContain("outputSchema");
    expect(said).toContain("/rows");
    expect(said).toContain("/names/0");
    expect(message?.details).toEqual({ kept: true });
    expect(ends.get("b")?.result).not.toHaveProperty("structuredContent");
    expect(ends.get("b")?.durationMs).toBeTypeOf("number");
  });

  it("turns a missing structuredContent into an error result saying so", async () => {
    const bare = tool("bare", async () => text("ok"), { outputSchema });
    const { results } = await runCalls([bare], [{ id: "b", name: "bare" }]);
    expect(results.get("b")?.isError).toBe(true);
    expect(JSON.stringify(results.get("b")?.content)).toContain("no structuredContent");
  });

  it("does not check an error result (the schema is of successful results)", async () => {
    const failing = tool("failing", async () => ({ ...text("nope"), isError: true }), { outputSchema });
    const { results } = await runCalls([failing], [{ id: "f", name: "failing" }]);
    expect(results.get("f")).toMatchObject({ isError: true, content: [{ type: "text", text: "nope" }] });
  });

  it("accepts a TypeBox schema", async () => {
    const typed = tool("typed", async () => ({ ...text("ok"), structuredContent: { rows: 1.5 } }), { outputSchema: Type.Object({ rows: Type.Integer() }) });
    const { results } = await runCalls([typed], [{ id: "t", name: "typed" }]);
    expect(results.get("t")?.isError).toBe(true);
    expect(JSON.stringify(results.get("t")?.content)).toContain("/rows");
  });

  it("throws when the run starts if outputSchema is not a usable schema", () => {
    const broken = tool("broken", async () => text("ok"), { outputSchema: { type: "objekt" } });
    expect(() => agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [broken] }, baseConfig(), undefined, mockStream([]))).toThrow(
      /Tool "broken": its outputSchema is not valid JSON Schema/,
    );
  });
});

describe("per-tool executionMode", () => {
  it("runsSequentially: the run's mode, or any call of a tool that declares sequential", () => {
    const call = (name: string) => ({ type: "toolCall" as const, id: name, name, arguments: {} });
    expect(runsSequentially("parallel", [call("a"), call("b")], [])).toBe(false);
    expect(runsSequentially("parallel", [call("a"), call("s")], ["s"])).toBe(true);
    expect(runsSequentially("parallel", [call("a")], ["s"])).toBe(false);
    expect(runsSequentially("sequential", [call("a")], [])).toBe(true);
    expect(runsSequentially("sequential", [], [])).toBe(true);
  });

  it("a tool declaring parallel does not make a sequential run parallel", async () => {
    let running = 0;
    let most = 0;
    const gate = async () => {
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 1));
      running -= 1;
      return text("ok");
    };
    const free = tool("free", gate, { executionMode: "parallel" });
    await runCalls([free], [
      { id: "a", name: "free" },
      { id: "b", name: "free" },
    ], baseConfig({ toolExecution: "sequential" }));
    expect(most).toBe(1);
    await runCalls([free], [
      { id: "a", name: "free" },
      { id: "b", name: "free" },
    ]);
    expect(most).toBe(2);
  });

  it("an executionMode that is neither mode throws when the run starts", () => {
    const odd = { ...tool("odd", async () => text("ok")), executionMode: "serial" } as unknown as AgentTool;
    expect(() => agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [odd] }, baseConfig(), undefined, mockStream([]))).toThrow(
      /Tool "odd": executionMode must be "parallel" or "sequential"/,
    );
  });
});

describe("afterToolCall overrides (pi-agent-core 1.x)", () => {
  const source = () =>
    tool("source", async () => ({
      content: [{ type: "text", text: "original" }],
      details: { a: 1, nested: { keep: true } },
      structuredContent: { v: 1 },
      addedToolNames: ["extra"],
    }));

  async function afterWith(override: AfterToolCallResult | undefined) {
    const { ends, results } = await runCalls([source()], [{ id: "x", name: "source" }], baseConfig({ afterToolCall: async () => override }));
    return { end: ends.get("x"), message: results.get("x") };
  }

  it("replaces each given field in full, with no deep merge, and keeps the others", async () => {
    const { end, message } = await afterWith({ details: { nested: {} } });
    expect(end?.result).toEqual({
      content: [{ type: "text", text: "original" }],
      details: { nested: {} },
      structuredContent: { v: 1 },
      addedToolNames: ["extra"],
    });
    expect(message?.details).toEqual({ nested: {} });
  });

  it("replaces structuredContent when given", async () => {
    const { end } = await afterWith({ structuredContent: { v: 2 } });
    expect(end?.result.structuredContent).toEqual({ v: 2 });
    expect(end?.result.content).toEqual([{ type: "text", text: "original" }]);
  });

  it("drops structuredContent when content is replaced without it, keeps the given one with it", async () => {
    const dropped = await afterWith({ content: [{ type: "text", text: "rewritten" }] });
    expect(dropped.end?.result).not.toHaveProperty("structuredContent");
    expect(dropped.end?.result.content).toEqual([{ type: "text", text: "rewritten" }]);
    const kept = await afterWith({ content: [{ type: "text", text: "rewritten" }], structuredContent: { v: 3 } });
    expect(kept.end?.result.structuredContent).toEqual({ v: 3 });
  });

  it("an override whose structuredContent is not JSON data fails the call", async () => {
    const { message } = await afterWith({ structuredContent: { bad: Number.NaN } } as AfterToolCallResult);
    expect(message?.isError).toBe(true);
    expect(JSON.stringify(message?.content)).toContain("structuredContent.bad");
  });
});
