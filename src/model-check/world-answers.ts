/**
 * What the model checker's world can answer: the stub model and its sample
 * responses, the sample outcomes of tools, a call's hooks and the loop's hooks,
 * and the world's synchronous argument preparation. See `loop-world.ts`.
 */
import { awaitsApproval, synchronousPreparation, type ToolCallContext } from "../../machines/tool-call.machine.js";
import type { AgentMessage, AssistantMessage, Model, StopReason, ToolCall } from "../types.js";
import { finalResponse } from "../providers/check-stream-event.js";
import { compactWithSummary } from "../compaction/compact-transcript.js";
import { transcriptMessages, type Transcript } from "../../machines/transcript.js";
import type { HookOutcome, LoopWorldOptions, LoopWorldState, WorldCall, WorldEvent } from "./loop-world-types.js";

/** Name of the tool that declares sequential execution in sample batches. */
export const SERIAL_TOOL = "serialTool";
/** Name of the tool of every other sample call. */
export const TOOL = "tool";

export const STUB_MODEL: Model = {
  id: "model-check",
  name: "Model check stand-in",
  api: "model-check",
  provider: "model-check",
  baseUrl: "",
  reasoning: false,
  input: ["text"],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 1,
  maxTokens: 1,
};

/** A user message the world uses for prompts, steering and follow-ups. */
export const sampleMessage = (text: string): AgentMessage => ({ role: "user", content: text, timestamp: 0 });

/** The base input every configuration starts from: one prompt, a stub model. */
export function baseLoopInput() {
  const prompt = sampleMessage("check the loop");
  return { systemPrompt: "model check", messages: [prompt], prompts: [prompt], model: STUB_MODEL };
}

export function response(stopReason: StopReason, calls: ToolCall[], text: boolean): AssistantMessage {
  return {
    role: "assistant",
    content: [...(text ? [{ type: "text" as const, text: "…" }] : []), ...calls],
    api: STUB_MODEL.api,
    provider: STUB_MODEL.provider,
    model: STUB_MODEL.id,
    // One token per response, so a budget of n tokens is reached by the n-th response.
    usage: { input: 0, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 1, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason,
    ...(stopReason === "error" || stopReason === "aborted" ? { errorMessage: `response ${stopReason}` } : {}),
    timestamp: 0,
  };
}

export const SETTLE_TEXT = {
  ok: "done",
  throws: "the tool threw",
  invalid: "Tool tool: invalid arguments",
  blocked: "Tool execution was blocked",
} as const;

/** Marks a sample call's raw arguments as failing preparation (unknown tool or invalid arguments). */
const INVALID_FLAG = "modelCheckInvalid";

/** Marks a sample call as one to a tool whose `needsApproval` is `true` (approval configurations). */
const ASKS_FLAG = "modelCheckAsksApproval";

/** Whether the world marked a call's raw arguments as failing preparation (unknown tool or invalid arguments). */
export const marksInvalid = (context: ToolCallContext): boolean => context.toolCall.arguments[INVALID_FLAG] === true;

/**
 * The world's `prepareArguments` (a call's synchronous preparation without
 * `beforeToolCall`): arguments the world marked invalid settle at once with the
 * invalid-arguments result; the others are accepted as they are.
 */
export const worldPrepareArguments = synchronousPreparation(({ context }): Partial<ToolCallContext> => {
  if (marksInvalid(context)) return { settled: { result: { content: [{ type: "text", text: SETTLE_TEXT.invalid }], details: {} }, isError: true, rejected: "invalidArguments" } };
  // A call to a tool whose needsApproval is `true` asks (unless its tool was approved for good).
  const asks = context.toolCall.arguments[ASKS_FLAG] === true && context.preapproved !== true;
  return asks ? { args: context.toolCall.arguments, approval: "asked" } : { args: context.toolCall.arguments };
});

export const DEFAULT_HOOK_OUTCOMES: Record<string, HookOutcome[]> = {
  pollSteering: [
    { label: "no messages", output: [] },
    { label: "1 message", output: [sampleMessage("steer")], fact: { pendingDelivered: true } },
  ],
  pollFollowUp: [
    { label: "no messages", output: [] },
    { label: "1 message", output: [sampleMessage("follow up")], fact: { pendingDelivered: true } },
  ],
  checkStopAfterTurn: [
    { label: "false", output: false },
    { label: "true", output: true, fact: { stopRequested: true } },
  ],
  prepareNextTurn: [
    { label: "no change", output: undefined },
    { label: "1 message", output: { append: [sampleMessage("prepared")] } },
  ],
  prepareRequest: [{ label: "no change", output: undefined }],
  finishTurn: [
    { label: "no decision", output: undefined },
    { label: "end", output: "end", fact: { stopRequested: true } },
    { label: "continue", output: "continue", fact: { continueRequested: true } },
  ],
  invalidCallHint: [{ label: "hint", output: sampleMessage("hint") }],
};

/** The provider's words for a request that did not fit the window (an overflow the loop compacts for). */
export const OVERFLOW_TEXT = "prompt is too long: 2 tokens > 1 maximum";
/** Input tokens a response reports when the world makes the context nearly fill the window. */
export const NEAR_WINDOW_TOKENS = 1_000_000;

/**
 * The world's answers to the summarizer (`compactContext`) of a compacting run:
 * the real cut of the transcript the loop holds (keeping only the running turn, the
 * deepest cut, so every pairing the cut could break is at risk), nothing to cut,
 * or a failure.
 */
export function compactionEvents(id: string, context: { messages: Transcript; systemPrompt: string }): WorldEvent[] {
  const messages = transcriptMessages(context.messages);
  const result = compactWithSummary(messages, 0, () => "(summary)", context.systemPrompt);
  const unchanged = { ...result, compacted: false, replaced: 0, tokensAfter: result.tokensBefore };
  delete (unchanged as { summaryMessage?: unknown }).summaryMessage;
  return [
    ...(result.compacted ? [{ type: `compactContext → summary replaces ${result.replaced} messages`, send: { type: `xstate.done.actor.${id}`, output: result } }] : []),
    { type: "compactContext → nothing to cut", send: { type: `xstate.done.actor.${id}`, output: unchanged } },
    { type: "compactContext throws", send: { type: `xstate.error.actor.${id}`, error: new Error("the summarizer failed") }, fact: { hookFailed: true } },
  ];
}

/** Actor sources the world plays itself rather than answering as a hook. */
export const OWN_SOURCES = new Set(["requestModel", "toolBatch", "toolCall"]);

/** The model's possible responses to the current request (`withoutTools`: the wrap-up request, which declared none). */
export function modelEvents(state: LoopWorldState, withoutTools: boolean, options: Pick<LoopWorldOptions, "maxCalls" | "approvals" | "compaction">): WorldEvent[] {
  const events: WorldEvent[] = [];
  if (!state.modelStarted) {
    // A streamed response: the requestModel actor emits message_start to the sink itself.
    const partial = response("stop", [], false);
    events.push({ type: "model streams (message_start)", emits: { type: "message_start", message: partial }, modelStarted: true });
  }
  const turn = state.monitor.turns;
  const callsOf = (count: number, options: { serial?: boolean; invalid?: number; asks?: number } = {}): ToolCall[] =>
    Array.from({ length: count }, (_, index) => ({
      type: "toolCall",
      id: `call-${turn}.${index + 1}`,
      name: options.serial && index === 0 ? SERIAL_TOOL : TOOL,
      arguments: {
        n: index + 1,
        ...(options.invalid === index + 1 ? { [INVALID_FLAG]: true } : {}),
        ...(options.asks === index + 1 ? { [ASKS_FLAG]: true } : {}),
      },
    }));
  const plural = (count: number) => `${count} call${count > 1 ? "s" : ""}`;
  const done = (label: string, message: AssistantMessage): WorldEvent => ({
    type: `model.done(${label})`,
    send: { type: "model.done", message, started: state.modelStarted },
    modelStarted: false,
    fact: {
      response: {
        stopReason: message.stopReason,
        calls: message.content.flatMap((block) => (block.type === "toolCall" ? [block.id] : [])),
        withoutTools,
      },
    },
  });
  events.push(done("text", response("stop", [], true)));
  for (let count = 1; count <= options.maxCalls; count++) {
    events.push(done(plural(count), response("toolUse", callsOf(count), false)));
  }
  // One call that fails preparation (unknown tool or invalid arguments): first of a batch, and last of the largest.
  events.push(done(`${plural(Math.min(2, options.maxCalls))}, call 1 invalid`, response("toolUse", callsOf(Math.min(2, options.maxCalls), { invalid: 1 }), false)));
  if (options.maxCalls >= 2) {
    events.push(done(`${plural(options.maxCalls)}, call ${options.maxCalls} invalid`, response("toolUse", callsOf(options.maxCalls, { invalid: options.maxCalls }), false)));
  }
  const serialCount = Math.min(2, options.maxCalls);
  events.push(done(`${plural(serialCount)}, first to ${SERIAL_TOOL}`, response("toolUse", callsOf(serialCount, { serial: true }), false)));
  for (let count = 1; count <= Math.min(2, options.maxCalls); count++) {
    events.push(done(`length, ${plural(count)}`, response("length", callsOf(count), true)));
  }
  events.push(done("length, text only", response("length", [], true)));
  // A call to a tool whose needsApproval is `true`: its synchronous preparation asks.
  if (options.approvals) events.push(done(`${plural(Math.min(2, options.maxCalls))}, call 1 needs approval`, response("toolUse", callsOf(Math.min(2, options.maxCalls), { asks: 1 }), false)));
  events.push(done("error", response("error", [], false)));
  events.push(done("aborted", response("aborted", [], false)));
  if (options.compaction) {
    // The provider refuses the request as too long (an overflow the loop compacts for and retries once).
    events.push(done("error, context overflow", { ...response("error", [], false), errorMessage: OVERFLOW_TEXT }));
    // The context is now too large: the response reports an input near the window, so the next request compacts first.
    const near = (message: AssistantMessage): AssistantMessage => ({ ...message, usage: { ...message.usage, input: NEAR_WINDOW_TOKENS } });
    events.push(done("1 call, context too large", near(response("toolUse", callsOf(1), false))));
    events.push(done("text, context too large", near(response("stop", [], true))));
    // A length stop with few output tokens (1 of the many allowed) on a request that filled the window.
    for (let count = 0; count <= 1; count++) events.push(done(`length, ${count > 0 ? plural(count) : "text only"}, few tokens, context full`, near(response("length", callsOf(count), true))));
  }
  // Malformed final events, turned into the response the requestModel actor sends (finalResponse):
  // an invalid done event after a streamed call (the turn fails, keeping what streamed; the call gets no result),
  // an error event carrying an Error instance, and calls whose ids are missing or repeated (repaired, one result each).
  const end = (value: unknown, eventType: "done" | "error", partial?: AssistantMessage) =>
    finalResponse({ value, eventType, partial, model: STUB_MODEL, assignToolCallId: (index) => `call-${turn}.${index + 1}` });
  const streamedCall = state.modelStarted ? response("toolUse", callsOf(1), true) : undefined;
  events.push(done("invalid done event", end(undefined, "done", streamedCall)));
  events.push(done("invalid error event", end(new Error("socket hang up"), "error")));
  if (options.maxCalls >= 2) {
    const [first, second] = callsOf(2);
    const { id: _missing, ...withoutId } = first as ToolCall;
    const raw = { ...response("toolUse", [], false), content: [withoutId, { ...second, id: (first as ToolCall).id }] };
    events.push(done("2 calls, ids missing and repeated", end(raw, "done")));
  }
  return events;
}

/** A tool's result with `textValue`, terminating when asked. */
export const result = (textValue: string, terminate: boolean) => ({
  content: [{ type: "text", text: textValue }],
  details: {},
  ...(terminate ? { terminate: true } : {}),
});

/** Answers of the actor a tool-call actor is waiting on, by the actor's source name. */
export function callEvents(call: WorldCall, options: Pick<LoopWorldOptions, "approvals">): WorldEvent[] {
  if (call.snapshot.status !== "active") return [];
  const label = (text: string) => `call ${call.index + 1}: ${text}`;
  const events: WorldEvent[] = [];
  for (const [id, child] of Object.entries(call.snapshot.children as Record<string, { src?: unknown }>)) {
    const src = typeof child?.src === "string" ? child.src : "";
    const done = (text: string, output: unknown): WorldEvent => ({ type: label(text), call: call.id, send: { type: `xstate.done.actor.${id}`, output } });
    const fail = (text: string): WorldEvent => ({ type: label(text), call: call.id, send: { type: `xstate.error.actor.${id}`, error: new Error(text) } });
    if (src === "executeTool") {
      // The tool runs in the call's executeTool actor; it never rejects (a throwing tool resolves to an error result).
      events.push(
        done("succeeds", { result: result(SETTLE_TEXT.ok, false), isError: false }),
        done("throws", { result: result(SETTLE_TEXT.throws, false), isError: true }),
        done("succeeds, terminate", { result: result(SETTLE_TEXT.ok, true), isError: false }),
        fail("the execute actor fails"),
      );
      // A tool with a retry policy may throw an error it marks retryable.
      if ((call.snapshot.context as ToolCallContext).policy?.retry) {
        events.push(done("throws, retryable", { result: result(SETTLE_TEXT.throws, false), isError: true, retryable: true }));
      }
    } else if (src === "prepareCall") {
      // Arguments the world marked invalid settle at once (what an unknown tool, invalid arguments
      // or an abort before preparing all become); with beforeToolCall the hook may block or throw.
      const context = call.snapshot.context as ToolCallContext;
      if (marksInvalid(context)) {
        events.push({
          ...done("invalid", { settled: { result: result(SETTLE_TEXT.invalid, false), isError: true, rejected: "invalidArguments" } }),
          fact: { invalidCall: true },
        });
      } else {
        events.push(done("prepared", { args: context.toolCall.arguments }));
        if (options.approvals) events.push(done("prepared, asks approval", { args: context.toolCall.arguments, approval: "ask" }));
        if (context.hooks?.beforeToolCall) {
          events.push(
            done("blocked", { settled: { result: result(SETTLE_TEXT.blocked, false), isError: true } }),
            done("blocked, terminate", { settled: { result: result(SETTLE_TEXT.blocked, true), isError: true } }),
            fail("the prepare actor fails"),
          );
        }
      }
    } else if (src === "afterToolCall") {
      const executed = (call.snapshot.context as { settled?: unknown }).settled;
      events.push(
        done("afterToolCall keeps", executed),
        done("afterToolCall overrides, terminate", { result: result("overridden", true), isError: false }),
        fail("afterToolCall throws"),
      );
    } else {
      events.push(done(`${src || id} done`, undefined), fail(`${src || id} throws`));
    }
  }
  // The call's delayed transitions (a tool's timeout, a retry's backoff): the timer may fire.
  for (const node of (call.snapshot as { _nodes?: { after?: { eventType: string }[] }[] })._nodes ?? []) {
    for (const delayed of node.after ?? []) {
      events.push({ type: label(`timer ${delayed.eventType.split(".")[2] ?? delayed.eventType} fires`), call: call.id, send: { type: delayed.eventType } });
    }
  }
  // A call waiting for a decision: the user answers through the loop, which finds the call by its system id.
  if (awaitsApproval(call.snapshot.value)) {
    const toolCallId = call.callId;
    events.push(
      { type: label("user approves"), send: { type: "tool.approve", toolCallId } },
      { type: label("user approves always"), send: { type: "tool.approve", toolCallId, always: true } },
      { type: label("user rejects"), send: { type: "tool.reject", toolCallId, reason: "no" } },
    );
  }
  return events;
}

/** A hook actor's possible outcomes (the samples of `hookOutcomes`, or done) and its failure. */
export function hookEvents(id: string, src: string, hookOutcomes: Record<string, HookOutcome[]>): WorldEvent[] {
  const outcomes = hookOutcomes[src] ?? [{ label: "done", output: undefined }];
  return [
    ...outcomes.map((outcome): WorldEvent => ({
      type: `${src} → ${outcome.label}`,
      send: { type: `xstate.done.actor.${id}`, output: outcome.output },
      ...(outcome.fact ? { fact: outcome.fact } : {}),
    })),
    { type: `${src} throws`, send: { type: `xstate.error.actor.${id}`, error: new Error(`${src} failed`) }, fact: { hookFailed: true } },
  ];
}

/** What the world could still answer in `state`: the sources of the pending actors (for the never-settles report). */
export function waitingOn(state: LoopWorldState): string {
  const sources = (children: object) => Object.values(children as Record<string, { src?: unknown }>).flatMap((child) => (typeof child?.src === "string" ? [child.src] : []));
  const all = [...sources(state.loop.children as object), ...state.batches.flatMap((batch) => sources(batch.snapshot.children as object)), ...state.calls.flatMap((call) => (call.snapshot.status === "active" ? sources(call.snapshot.children as object) : []))];
  return [...new Set(all.filter((src) => src !== "toolCall" && src !== "toolBatch"))].join(", ") || "nothing the world can answer";
}

/** The actor a call waits on, if any: its invoke id and source. */
export function pendingOf(call: WorldCall): { id: string; src: string } | undefined {
  if (call.snapshot.status !== "active") return undefined;
  for (const [id, child] of Object.entries(call.snapshot.children as Record<string, { src?: unknown }>)) {
    if (typeof child?.src === "string") return { id, src: child.src };
  }
  return undefined;
}
