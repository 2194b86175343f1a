import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { resultMessage } from "../../machines/tool-batch-layout.js";
import { executionEnd, missingResult, settledReport, type ToolCallContext } from "../../machines/tool-call-setup.js";
import type { SettledToolCall, ToolCallToBatchEvent } from "../../machines/events.js";

type Settled = Extract<ToolCallToBatchEvent, { type: "tool.settled" }>;

/**
 * The messages as the protocol states them, written the plain way (a spread per
 * optional field): the builders set the same fields, present only when given, in
 * the same order.
 */
const reference = {
  resultMessage: (event: Settled, timestamp: number) => ({
    role: "toolResult",
    toolCallId: event.toolCallId,
    toolName: event.toolName,
    content: event.result.content ?? [],
    details: event.result.details,
    isError: event.isError,
    ...(event.result.usage === undefined ? {} : { usage: event.result.usage }),
    ...(event.result.addedToolNames === undefined ? {} : { addedToolNames: event.result.addedToolNames }),
    ...(event.durationMs === undefined ? {} : { durationMs: event.durationMs }),
    timestamp,
  }),
  settledReport: (context: ToolCallContext) => {
    const settled = context.settled ?? missingResult();
    return {
      type: "tool.settled",
      toolCallId: context.toolCall.id,
      toolName: context.toolCall.name,
      index: context.index,
      result: settled.result,
      isError: settled.isError,
      ...(settled.rejected !== undefined ? { rejected: settled.rejected } : {}),
      ...(settled.durationMs === undefined ? {} : { durationMs: settled.durationMs }),
    };
  },
  executionEnd: (context: ToolCallContext) => {
    const settled = context.settled ?? missingResult();
    return {
      type: "tool_execution_end",
      toolCallId: context.toolCall.id,
      toolName: context.toolCall.name,
      result: settled.result,
      isError: settled.isError,
      ...(settled.durationMs === undefined ? {} : { durationMs: settled.durationMs }),
    };
  },
};

const usage = { input: 1, output: 2, cacheRead: 0, cacheWrite: 0, totalTokens: 3, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };

const toolResult = fc.record(
  {
    content: fc.array(fc.record({ type: fc.constant("text" as const), text: fc.string() }), { maxLength: 3 }),
    details: fc.oneof(fc.constant(undefined), fc.dictionary(fc.string(), fc.integer(), { maxKeys: 2 })),
    usage: fc.constant(usage),
    addedToolNames: fc.array(fc.string(), { maxLength: 2 }),
    terminate: fc.boolean(),
  },
  { requiredKeys: ["content"] },
);

const settledCall: fc.Arbitrary<SettledToolCall> = fc.record(
  {
    result: toolResult,
    isError: fc.boolean(),
    rejected: fc.constantFrom("unknownTool" as const, "invalidArguments" as const),
    retryable: fc.constant(true as const),
    durationMs: fc.nat(),
  },
  { requiredKeys: ["result", "isError"] },
) as fc.Arbitrary<SettledToolCall>;

const callContext: fc.Arbitrary<ToolCallContext> = fc
  .record({ id: fc.string(), name: fc.string(), index: fc.nat(), settled: fc.option(settledCall, { nil: undefined }) })
  .map(({ id, name, index, settled }) => {
    const context: ToolCallContext = { toolCall: { type: "toolCall", id, name, arguments: {} }, index, hooks: { beforeToolCall: false, afterToolCall: false }, reportsPreparation: false };
    if (settled !== undefined) context.settled = settled;
    return context;
  });

/** Equal, with the same keys in the same order, and no key whose value is undefined where the reference has none. */
function expectSameShape(actual: object, expected: object) {
  expect(actual).toStrictEqual(expected);
  expect(Object.keys(actual)).toEqual(Object.keys(expected));
  expect(JSON.stringify(actual)).toBe(JSON.stringify(expected));
}

describe("a call's messages", () => {
  it("tool.settled and tool_execution_end have the protocol's fields, only those present, in order", () => {
    fc.assert(
      fc.property(callContext, (context) => {
        expectSameShape(settledReport(context), reference.settledReport(context));
        expectSameShape(executionEnd(context), reference.executionEnd(context));
      }),
    );
  });

  it("the result message has the protocol's fields, only those present, in order", () => {
    fc.assert(
      fc.property(callContext, (context) => {
        const event = settledReport(context);
        const message = resultMessage(event);
        expectSameShape(message, reference.resultMessage(event, message.timestamp));
      }),
    );
  });
});
