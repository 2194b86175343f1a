import { describe, expect, it } from "vitest";
import type { AnyActorRef, InspectionEvent } from "xstate";
import { agentLoop, rawInspectionEvent } from "../../src/index.js";
import { baseConfig, mockStream, user } from "../helpers/mock-stream.js";
import { echoTool } from "../helpers/tools.js";

/**
 * XState's `assign` builds each new context with `Object.assign({}, …)`; V8 turns
 * such an object into a hash table once it has 20 properties, and then every
 * assign and every guard's read of the context is a hash-table operation. So no
 * machine's context may reach 20 top-level fields, even with every policy, hook
 * and optional field a run can set.
 */
const V8_FAST_PROPERTY_LIMIT = 20;

describe("context size", () => {
  it("keeps every machine's context under 20 top-level fields in a run with every policy and hook", async () => {
    const { tool } = echoTool();
    tool.timeoutMs = 1_000;
    // Both calls of a turn are to this tool: the batch is capped (its queue is one more field).
    tool.concurrency = 1;
    const widest = new Map<string, number>();
    const inspect = (event: InspectionEvent) => {
      const raw = rawInspectionEvent(event);
      if (raw.type !== "@xstate.snapshot") return;
      const context = (raw.snapshot as { context?: unknown }).context;
      if (typeof context !== "object" || context === null) return;
      const machine = (raw.actorRef as AnyActorRef & { logic: { config?: { id?: string } } }).logic.config?.id;
      if (machine === undefined) return;
      widest.set(machine, Math.max(widest.get(machine) ?? 0, Object.keys(context).length));
    };
    const calls = (turn: number) => [
      { id: `a${turn}`, name: "echo", arguments: { text: "a" } },
      { id: `b${turn}`, name: "echo", arguments: { text: 7 } },
    ];
    const stream = agentLoop(
      [user("go")],
      { systemPrompt: "", messages: [], tools: [tool] },
      baseConfig({
        inspect,
        maxTurns: 2,
        wrapUp: true,
        budget: { tokens: 1_000_000 },
        invalidCallLimit: 2,
        onInvalidCallLimit: "hint",
        beforeToolCall: async () => undefined,
        afterToolCall: async () => undefined,
        getSteeringMessages: async () => [],
        getFollowUpMessages: async () => [],
        shouldStopAfterTurn: async () => false,
        prepareRequest: async () => undefined,
        finishTurn: async () => undefined,
        prepareNextTurn: async () => undefined,
      }),
      undefined,
      mockStream([{ calls: calls(1) }, { calls: calls(2) }, { text: "wrapped up" }]),
    );
    const messages = await stream.result();
    expect(messages.at(-1)).toMatchObject({ role: "assistant" });
    // All three machines ran, and each stayed a fast object.
    expect([...widest.keys()].sort()).toEqual(["agentLoop", "toolBatch", "toolCall"]);
    for (const [machine, fields] of widest) expect({ machine, fields: fields < V8_FAST_PROPERTY_LIMIT }).toEqual({ machine, fields: true });
  });
});
