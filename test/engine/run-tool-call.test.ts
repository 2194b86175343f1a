/**
 * `runToolCall` (pi-agent-core 1.x): one call through the tool-call machine, with the
 * same steps as a model-issued call, no events, and a result that never rejects.
 */
import { describe, expect, it } from "vitest";
import { Type } from "typebox";
import { RUN_TOOL_CALL_APPROVAL_MESSAGE, runToolCall, type RunToolCallOptions } from "../../src/index.js";
import type { AgentTool, AgentToolCall, AgentToolResult } from "../../src/types.js";
import { assistant, user } from "../helpers/mock-stream.js";
import { text } from "../helpers/tools.js";

const parameters = Type.Object({ n: Type.Number() });

function counter(overrides: Partial<AgentTool<typeof parameters>> = {}) {
  const ran: number[] = [];
  const tool: AgentTool<typeof parameters> = {
    name: "counter",
    label: "Counter",
    description: "Counts",
    parameters,
    async execute(_id, args, _signal, onUpdate) {
      ran.push(args.n);
      onUpdate?.(text(`half way to ${args.n}`));
      onUpdate?.(text(`almost ${args.n}`));
      return { ...text(`n=${args.n}`), structuredContent: { n: args.n } };
    },
    ...overrides,
  };
  return { tool, ran };
}

const call = (args: Record<string, unknown>, name = "counter"): AgentToolCall => ({ type: "toolCall", id: "nested-1", name, arguments: args });

function options(tools: AgentTool[], extra: Partial<RunToolCallOptions> = {}): RunToolCallOptions {
  return {
    tools,
    assistantMessage: assistant({ calls: [{ id: "outer", name: "outer", arguments: {} }] }),
    context: { systemPrompt: "sys", messages: [user("hi")] },
    ...extra,
  };
}

const said = (result: AgentToolResult<unknown>) => result.content.map((block) => (block.type === "text" ? block.text : "")).join("");

describe("runToolCall", () => {
  it("runs the call with coerced arguments and returns the outcome with durationMs; onUpdate gets the partial results in order", async () => {
    const { tool, ran } = counter();
    const updates: string[] = [];
    const outcome = await runToolCall(call({ n: "3" }), options([tool], { onUpdate: (partial) => void updates.push(said(partial)) }));
    expect(ran).toEqual([3]);
    expect(outcome).toMatchObject({ toolCall: call({ n: "3" }), isError: false, result: { content: [{ type: "text", text: "n=3" }], structuredContent: { n: 3 } } });
    expect(outcome.durationMs).toBeTypeOf("number");
    expect(updates).toEqual(["half way to 3", "almost 3"]);
  });

  it("waits for an async onUpdate before resolving, and ignores one that throws", async () => {
    const { tool } = counter();
    const seen: string[] = [];
    const outcome = await runToolCall(
      call({ n: 1 }),
      options([tool], {
        onUpdate: async (partial) => {
          await new Promise((resolve) => setTimeout(resolve, 1));
          seen.push(said(partial));
          if (seen.length === 1) throw new Error("listener broke");
        },
      }),
    );
    expect(seen).toEqual(["half way to 1", "almost 1"]);
    expect(outcome.isError).toBe(false);
  });

  it("answers an unknown tool and invalid arguments with error outcomes without running anything", async () => {
    const { tool, ran } = counter();
    const unknown = await runToolCall(call({ n: 1 }, "nope"), options([tool]));
    expect(unknown).toMatchObject({ isError: true });
    expect(said(unknown.result)).toBe("Tool nope not found");
    expect(unknown).not.toHaveProperty("durationMs");
    const invalid = await runToolCall(call({ n: "many" }), options([tool]));
    expect(invalid.isError).toBe(true);
    expect(said(invalid.result)).toContain("/n");
    expect(ran).toEqual([]);
  });

  it("checks an aborted signal first: no hook is asked and the tool does not run", async () => {
    const { tool, ran } = counter();
    const asked: string[] = [];
    const controller = new AbortController();
    controller.abort();
    const outcome = await runToolCall(
      call({ n: 1 }),
      options([tool], { signal: controller.signal, beforeToolCall: async () => void asked.push("before") }),
    );
    expect(outcome).toMatchObject({ isError: true });
    expect(said(outcome.result)).toBe("Operation aborted");
    expect(asked).toEqual([]);
    expect(ran).toEqual([]);
  });

  it("applies beforeToolCall (shown the assistant message and context) and afterToolCall, as in a run", async () => {
    const { tool, ran } = counter();
    const seen: string[] = [];
    const blocked = await runToolCall(
      call({ n: 1 }),
      options([tool], {
        beforeToolCall: async ({ assistantMessage, context, args }) => {
          seen.push(`${assistantMessage.content.length} block, ${context.messages.length} message, n=${(args as { n: number }).n}`);
          return { block: true, reason: "not allowed here" };
        },
      }),
    );
    expect(blocked).toMatchObject({ isError: true });
    expect(said(blocked.result)).toBe("not allowed here");
    expect(seen).toEqual(["1 block, 1 message, n=1"]);
    const after = await runToolCall(
      call({ n: 2 }),
      options([tool], { afterToolCall: async ({ result }) => ({ content: [{ type: "text", text: `checked ${said(result)}` }] }) }),
    );
    expect(after).toMatchObject({ isError: false, result: { content: [{ type: "text", text: "checked n=2" }] } });
    expect(after.result).not.toHaveProperty("structuredContent");
    expect(ran).toEqual([2]);
  });

  it("turns a throwing tool and an outputSchema mismatch into error outcomes", async () => {
    const throwing = counter({
      async execute() {
        throw new Error("disk on fire");
      },
    }).tool;
    const thrown = await runToolCall(call({ n: 1 }), options([throwing]));
    expect(thrown).toMatchObject({ isError: true });
    expect(said(thrown.result)).toBe("disk on fire");
    expect(thrown.durationMs).toBeTypeOf("number");
    const strict = counter({ outputSchema: { type: "object", properties: { n: { type: "string" } }, required: ["n"] } }).tool;
    const mismatch = await runToolCall(call({ n: 1 }), options([strict]));
    expect(mismatch.isError).toBe(true);
    expect(said(mismatch.result)).toContain("outputSchema");
  });

  it("rejects a call that would wait for approval, without running the tool", async () => {
    const { tool, ran } = counter({ needsApproval: true });
    const outcome = await runToolCall(call({ n: 1 }), options([tool]));
    expect(outcome.isError).toBe(true);
    expect(said(outcome.result)).toContain(RUN_TOOL_CALL_APPROVAL_MESSAGE);
    expect(ran).toEqual([]);
  });

  it("never rejects, even for a call that is not a tool call block", async () => {
    const { tool } = counter();
    const outcome = await runToolCall(null as unknown as AgentToolCall, options([tool]));
    expect(outcome.isError).toBe(true);
  });
});
