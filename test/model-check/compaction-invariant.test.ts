import { describe, expect, it } from "vitest";
import { enqueueActions } from "xstate";
import { agentLoopMachine, type AgentLoopContext } from "../../machines/agent-loop.machine.js";
import { compactedState, compactionEndEvent, type CompactionResult } from "../../machines/compaction-policy.js";
import { transcriptMessages, transcriptOf } from "../../machines/transcript.js";
import { checkAgentLoop, formatViolation } from "../../src/model-check/index.js";
import { MODEL_CHECK_COMPACTION } from "../../src/model-check/check-agent-loop.js";
import { requestContextProblems } from "../../src/model-check/request-context.js";
import { assistantCalls, toolResult, userText } from "../compaction/transcripts.js";

const compacting = [
  { name: "compaction and follow-up", input: { hooks: { followUp: true } as never, maxTurns: 2, compaction: MODEL_CHECK_COMPACTION } },
  {
    name: "compaction, steering and prepareRequest, sequential",
    input: { hooks: { steering: true, prepareRequest: true } as never, toolExecution: "sequential" as const, maxTurns: 2, compaction: MODEL_CHECK_COMPACTION },
  },
];

/**
 * A seeded fault: the compaction keeps the transcript from one message after the
 * cut, so when the cut is at an assistant message whose calls have results, the
 * kept part starts with those results and their call is summarized away.
 */
const cutsBetweenCallAndResult = agentLoopMachine.provide({
  actions: {
    applyCompaction: enqueueActions(({ context, enqueue }: { context: AgentLoopContext; enqueue: unknown }, result: CompactionResult) => {
      const queue = enqueue as { assign: (value: Partial<AgentLoopContext>) => void; emit: (event: unknown) => void };
      const kept = transcriptMessages(context.messages).slice(result.replaced + 1);
      const messages = result.compacted && result.summaryMessage ? transcriptOf([result.summaryMessage, ...kept]) : context.messages;
      const reason = context.limits.compaction?.pending?.reason ?? "threshold";
      queue.assign({ messages, limits: { ...context.limits, compaction: compactedState(context.limits.compaction, reason, result, messages.length) } });
      queue.emit(compactionEndEvent(context.limits.compaction?.pending?.reason ?? "threshold", result));
    }) as never,
  },
});

describe("I9: every request pairs each tool call with exactly one result", () => {
  it("holds for the shipped machine across compaction (threshold, overflow, short length stops), abort, steering and follow-up, with the compaction states covered", () => {
    const report = checkAgentLoop(agentLoopMachine, { turns: 2, maxCalls: 2, configurations: compacting });
    expect(report.violations.map(formatViolation)).toEqual([]);
    expect(report.invariants).toContain("I9");
    expect(report.coverage.uncovered.filter((key) => /compact|contextTooLarge|overflow/i.test(key))).toEqual([]);
  }, 300_000);

  it("catches a seeded fault that cuts between a call and its result, with the path to it", () => {
    const report = checkAgentLoop(cutsBetweenCallAndResult, { turns: 2, maxCalls: 1, configurations: [compacting[0]!] });
    const violation = report.violations.find((candidate) => candidate.invariant === "I9");
    expect(violation, report.violations.map(formatViolation).join("\n")).toBeDefined();
    expect(violation!.message).toMatch(/result for call-\S+ without its call before it/);
    expect(violation!.path.some((event) => event.startsWith("compactContext → summary replaces"))).toBe(true);
  }, 300_000);

  it("the check itself: a result without its call, a call without a result, a second result", () => {
    const call = assistantCalls([{ id: "a", name: "read", arguments: {} }]);
    expect(requestContextProblems([userText("x"), call, toolResult("a", "read", "r")])).toEqual([]);
    expect(requestContextProblems([userText("x"), toolResult("a", "read", "r")])).toEqual(["result for a without its call before it"]);
    expect(requestContextProblems([userText("x"), call, userText("y")])).toEqual(["call a has 0 results before the next assistant message"]);
    expect(requestContextProblems([call, toolResult("a", "read", "r"), toolResult("a", "read", "r")])).toEqual(["call a has 2 results before the next assistant message"]);
  });
});
