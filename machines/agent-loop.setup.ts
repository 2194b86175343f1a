/**
 * What the loop chart is made of: its types, the actors it invokes, its guards,
 * delays and actions, all referenced by name from the chart
 * (`agent-loop.machine.ts` and the regions it composes, `requesting.state.ts` and
 * `between-turns.state.ts`). The defaults here are stand-ins without I/O (so
 * `xstate/graph` can traverse the machine); `src/actors/` provides the real ones
 * with `machine.provide(...)`.
 */
import { assign, emit, enqueueActions, fromCallback, fromPromise, raise, sendTo, setup, type AnyActorRef } from "xstate";
import type { AgentEvent, AgentMessage, AssistantMessage, ExitReason } from "../src/types.js";
import {
  callSystemId,
  type AgentLoopEvent,
  type ApprovalDecisionEvent,
  type NextTurnUpdate,
  type PrepareRequestInput,
  type RequestModelInput,
  type TurnDecision,
  type TurnHookInput,
} from "./events.js";
import { awaitsApproval, toolCallMachine, type ToolCallContext } from "./tool-call.machine.js";
import { toolBatchMachine, uniqueCallIds } from "./tool-batch.machine.js";
import { aloneCallsWaitedOn, callCountOf, runsAlone, settlesLastCall, spawnAloneCalls, unsettledAloneCalls, withSettled } from "./alone-call.js";
import type { AloneCallSettled, DispatchOutput } from "./alone-call.js";
import { callActorId } from "./tool-batch-layout.js";
import { awaitedNow, type InvokeErrorEvent } from "./awaited-work.js";
import { transcriptMessages, transcriptOf } from "./transcript.js";
import {
  plainInvalidCallHint,
  reachedBudget,
  spentAfter,
  streakAfterBatch,
  wrapUpMessage,
  type InvalidCallHintInput,
  type InvalidCallStreak,
} from "./loop-policies.js";
import {
  compactionEndEvent,
  compactionStartEvent,
  compactsAfterOverflow,
  compactedState,
  contextTokens,
  contextTooLarge,
  overflowPersists,
  type CompactContextInput,
  type CompactionReason,
  type CompactionResult,
} from "./compaction-policy.js";
import { compactWithSummary } from "../src/compaction/compact-transcript.js";
import { isPlainTurn } from "./plain-turn.js";
import {
  ABORTED_MESSAGE,
  appended,
  failedResponse,
  finalExitReason,
  abandonWarning,
  approvalWarning,
  turnFailed,
  toolCallsOf,
  withStreak,
  withTools,
  resultsAwaitBackfill,
  type AgentLoopContext,
  type AgentLoopInput,
  type AgentLoopOutput,
} from "./loop-context.js";

export { ABORT_GRACE_MS } from "./abort-grace.js";

export { AWAITED_BY_INVOKE, awaitedOf, hookFailureOf, type InvokeErrorEvent } from "./awaited-work.js";

export const agentLoopSetup = setup({
  types: {
    context: {} as AgentLoopContext,
    input: {} as AgentLoopInput,
    events: {} as AgentLoopEvent | InvokeErrorEvent | AloneCallSettled,
    emitted: {} as AgentEvent,
    output: {} as AgentLoopOutput,
  },
  actors: {
    /**
     * The model request of one turn, invoked by `requesting`: streams one response
     * (its updates are emitted by this actor) and sends back one `model.done`.
     * Stopping it (an abort, the run ending) stops waiting on the stream. Stand-in: never answers.
     */
    requestModel: fromCallback<AgentLoopEvent, RequestModelInput, AgentEvent>(() => undefined),
    /** Polls `getSteeringMessages`. Stand-in: none. */
    pollSteering: fromPromise<AgentMessage[]>(async () => []),
    /** Polls `getFollowUpMessages`. Stand-in: none. */
    pollFollowUp: fromPromise<AgentMessage[]>(async () => []),
    /** Asks `shouldStopAfterTurn`. Stand-in: false. */
    checkStopAfterTurn: fromPromise<boolean, TurnHookInput>(async () => false),
    /** Asks `prepareNextTurn`. Stand-in: no change. */
    prepareNextTurn: fromPromise<NextTurnUpdate | undefined, TurnHookInput>(async () => undefined),
    /** The breaker's hint (`onInvalidCallLimit: "hint"`): a steering message about the failing call. Stand-in: names the error only. */
    invalidCallHint: fromPromise<AgentMessage, InvalidCallHintInput>(async ({ input }) => plainInvalidCallHint(input)),
    /** Asks `prepareRequest` (pi 1.x) before a request. Stand-in: no change. */
    prepareRequest: fromPromise<NextTurnUpdate | undefined, PrepareRequestInput>(async () => undefined),
    /** Asks `finishTurn` (pi 1.x) before `turn_end`. Stand-in: no decision. */
    finishTurn: fromPromise<TurnDecision | undefined, TurnHookInput>(async () => undefined),
    /** The tool batch of one response: runs its calls, finishes with their results in source order. */
    toolBatch: toolBatchMachine,
    /** A call of a response on the direct path (`dispatching.alone`): the batch's own call machine. */
    toolCall: toolCallMachine,
    /**
     * Compacts the transcript (`requesting.compacting`): the summary of the older history
     * and how many leading messages it replaces. Stand-in: the real cut, with a fixed
     * summary text instead of a model's (no I/O).
     */
    compactContext: fromPromise<CompactionResult, CompactContextInput>(async ({ input }) =>
      compactWithSummary(transcriptMessages(input.messages), input.settings.keepRecentTokens, () => "(summary)", input.systemPrompt),
    ),
  },
  delays: {
    abortGrace: ({ context }) => context.settings.abortGraceMs,
  },
  guards: {
    notAborted: ({ context }) => !context.aborted,
    responseFailed: (_, response: AssistantMessage) => response.stopReason === "error" || response.stopReason === "aborted",
    hasNoToolCalls: (_, response: AssistantMessage) => callCountOf(response) === 0,
    /** The response's calls take the direct path: plain calls, which the loop runs without a batch (`alone-call.ts`). */
    runsAlone: ({ context }, response: AssistantMessage) => runsAlone(context, response),
    /** The `tool.settled` arriving on the direct path is from the last unsettled call. */
    settlesLastCall: ({ context }) => settlesLastCall(context),
    isLengthTruncated: (_, response: AssistantMessage) => response.stopReason === "length",
    everyResultTerminates: ({ context }) => context.terminated,
    hasPendingMessages: ({ context }) => context.pending.length > 0,
    hasToolCalls: ({ context }) => callCountOf(context.assistant) > 0,
    isAborted: ({ context }) => context.aborted,
    wasAbandoned: ({ context }) => context.abandoned === true,
    reachedMaxTurns: ({ context }) => context.settings.maxTurns !== undefined && context.turn >= context.settings.maxTurns,
    reachedInvalidCallLimit: ({ context }) =>
      context.limits.invalidStreak !== undefined && context.settings.invalidCallLimit > 0 && context.limits.invalidStreak.count >= context.settings.invalidCallLimit,
    hintsInvalidCall: ({ context }) => context.settings.onInvalidCallLimit === "hint" && context.limits.invalidStreak?.hinted === false,
    reachedBudget: ({ context }) => reachedBudget(context.settings.budget, context.limits.spent),
    wrapsUp: ({ context }) => context.settings.wrapUp !== undefined,
    isWrapUpTurn: ({ context }) => context.limits.wrappingUp !== undefined,
    pollsSteering: ({ context }) => context.settings.hooks.steering,
    pollsFollowUp: ({ context }) => context.settings.hooks.followUp,
    asksShouldStop: ({ context }) => context.settings.hooks.shouldStopAfterTurn,
    preparesNextTurn: ({ context }) => context.settings.hooks.prepareNextTurn,
    preparesRequest: ({ context }) => context.settings.hooks.prepareRequest,
    /** The run has finishTurn and has not abandoned work after an abort (then it asks no further hook). */
    asksFinishTurn: ({ context }) => context.settings.hooks.finishTurn && context.abandoned !== true,
    /** A failed response, and the run asks finishTurn (which cannot save the turn). */
    finishesFailedTurn: ({ context }, response: AssistantMessage) =>
      context.settings.hooks.finishTurn && context.abandoned !== true && (response.stopReason === "error" || response.stopReason === "aborted"),
    /** A response without tool calls, and the run asks finishTurn. */
    finishesAnsweredTurn: ({ context }, response: AssistantMessage) =>
      context.settings.hooks.finishTurn && context.abandoned !== true && callCountOf(response) === 0,
    turnFailed: ({ context }) => turnFailed(context),
    decidedToEnd: ({ context }) => context.turnDecision === "end",
    decidedToContinue: ({ context }) => context.turnDecision === "continue",
    shouldStop: (_, stop: boolean) => stop,
    /** Compaction is on and the next request's estimated context passes `contextWindow − reserveTokens`. */
    contextTooLarge: ({ context }) => contextTooLarge(context),
    /** The response overflowed the window (error or short `length` stop), not yet retried this turn. */
    compactsAfterOverflow: ({ context }, response: AssistantMessage) => compactsAfterOverflow(context, response),
    /** The response overflowed again after this turn's compaction. */
    overflowPersists: ({ context }, response: AssistantMessage) => overflowPersists(context, response),
    /** The compaction before the request is done, and the run asks prepareRequest before it. */
    preparesRequestAfterCompaction: ({ context }) => context.settings.hooks.prepareRequest && context.limits.compaction?.pending?.reason === "threshold",
    /** After `turn_end`, every decision up to the next request takes its default branch (see `plain-turn.ts`). */
    plainTurn: ({ context }) => isPlainTurn(context),
  },
  actions: {
    emitRunStart: enqueueActions(({ context, enqueue }) => {
      enqueue.emit({ type: "agent_start" });
      enqueue.emit({ type: "turn_start" });
      for (const message of context.settings.prompts) {
        enqueue.emit({ type: "message_start", message });
        enqueue.emit({ type: "message_end", message });
      }
    }),
    /** The next turn begins: its number (with `emitTurnStart` after it: two plain actions cost less than one that enqueues both). */
    startTurn: assign(({ context }) => ({ turn: context.turn + 1 })),
    emitTurnStart: emit(() => ({ type: "turn_start" as const })),
    injectPending: enqueueActions(({ context, enqueue }) => {
      if (context.pending.length === 0) return;
      for (const message of context.pending) {
        enqueue.emit({ type: "message_start", message });
        enqueue.emit({ type: "message_end", message });
      }
      enqueue.assign({ ...appended(context, context.pending), pending: [] });
    }),
    acceptResponse: enqueueActions(({ context, enqueue }, params: { message: AssistantMessage; started: boolean }) => {
      if (!params.started) enqueue.emit({ type: "message_start", message: params.message });
      enqueue.emit({ type: "message_end", message: params.message });
      const { messages, newMessages } = appended(context, [params.message]);
      // One object literal, set before anyone sees it (no spread objects: this runs every turn).
      const update: Partial<AgentLoopContext> = { messages, newMessages, assistant: params.message, toolResults: [], terminated: false, refusal: undefined, turnDecision: undefined };
      if (context.settings.budget) update.limits = { ...context.limits, spent: spentAfter(context.limits.spent, params.message) };
      enqueue.assign(update);
    }),
    emitTurnEnd: emit(({ context }) => ({
      type: "turn_end" as const,
      message: context.assistant as AgentMessage,
      toolResults: context.toolResults,
    })),
    /** The batch of this response refuses every call (length truncation, or a call the wrap-up request makes): nothing executes. */
    refuseCalls: assign((_, params: { refusal: string }) => ({ refusal: params.refusal })),
    /**
     * The backfill (`appending`): emits the result messages of a parallel batch in
     * source order (a sequential batch emitted each right after its call, as pi
     * does), appends the results to the transcript, notes whether they all
     * terminate, and counts the breaker's row: the same rejected call in a row (a
     * refused batch, where nothing was validated, leaves the row as it was).
     */
    appendBatchResults: enqueueActions(({ context, enqueue }, output: DispatchOutput) => {
      if (output.direct === true || resultsAwaitBackfill(context)) {
        for (const message of output.results) {
          enqueue.emit({ type: "message_start", message });
          enqueue.emit({ type: "message_end", message });
        }
      }
      const rejected = output.rejected ?? [];
      const counts = context.refusal === undefined && (rejected.length > 0 || context.limits.invalidStreak !== undefined);
      const { messages, newMessages } = appended(context, output.results);
      // One object literal, set before anyone sees it (no spread objects: this runs every turn).
      const update: Partial<AgentLoopContext> = { messages, newMessages, toolResults: output.results, terminated: output.terminates };
      // The direct path's kept settles are done with (none after one call: then the key is not set).
      if (context.settledCalls !== undefined) update.settledCalls = undefined;
      if (counts) update.limits = withStreak(context.limits, streakAfterBatch(context.limits.invalidStreak, toolCallsOf(context.assistant), output.results, rejected));
      enqueue.assign(update);
    }),
    /** A response without tool calls breaks the breaker's row. */
    endInvalidStreak: assign(({ context }) => ({ limits: withStreak(context.limits, undefined) })),
    /** Queues the breaker's hint as a steering message and remembers the model was told. */
    queueInvalidCallHint: assign(({ context }, params: { message: AgentMessage }) => ({
      pending: context.pending.concat([params.message]),
      limits: withStreak(context.limits, { ...(context.limits.invalidStreak as InvalidCallStreak), hinted: true }),
    })),
    exitOnInvalidCalls: assign(({ context }) => {
      const streak = context.limits.invalidStreak as InvalidCallStreak;
      return {
        exitReason: "invalidCalls" as ExitReason,
        errorMessage: `the model sent the same failing call to ${streak.toolName} ${streak.count} times in a row: ${streak.error}`,
      };
    }),
    /** The wrap-up request: its prompt is queued last, and the request declares no tools. */
    startWrapUp: assign(({ context }, params: { reason: "maxTurns" | "budget" }) => ({
      limits: { ...context.limits, wrappingUp: params.reason },
      pending: context.pending.concat([wrapUpMessage((context.settings.wrapUp as { prompt: string }).prompt)]),
    })),
    exitAfterWrapUp: assign(({ context }) => ({ exitReason: (context.limits.wrappingUp ?? "maxTurns") as ExitReason })),
    setPending: assign((_, params: { messages: AgentMessage[] }) => ({ pending: params.messages ?? [] })),
    recordTurnDecision: assign((_, decision: TurnDecision | undefined) => ({ turnDecision: decision })),
    applyNextTurnUpdate: assign(({ context }, update: NextTurnUpdate | undefined) => {
      if (!update) return {};
      return {
        systemPrompt: update.systemPrompt ?? context.systemPrompt,
        messages: update.messages ? transcriptOf(update.messages) : context.messages,
        model: update.model ?? context.model,
        thinkingLevel: update.thinkingLevel ?? context.thinkingLevel,
        // A new tool list (it comes with its sequential tools) brings its own policies, or none.
        settings: update.sequentialTools ? withTools(context.settings, update.sequentialTools, update.toolPolicies, update.approvalTools) : context.settings,
        pending: update.append && update.append.length > 0 ? [...update.append, ...context.pending] : context.pending,
      };
    }),
    markAborted: assign({ aborted: true }),
    markAbandoned: assign({ abandoned: true }),
    /** After the grace period, `run.abandon` stops the waiting on whatever ignored the abort. */
    scheduleAbandon: raise({ type: "run.abandon" }, { id: "abandon", delay: "abortGrace" }),
    /** Says what the run stops waiting on: `waitingOn` when given, else the hook it invoked (found among its children). */
    warnAbandoned: enqueueActions(({ context, enqueue, self }, params: { waitingOn?: string } | undefined) => {
      enqueue.emit(abandonWarning(context, params?.waitingOn ?? awaitedNow(self)));
    }),
    /** Tells the model request to give up on its stream: it answers with an aborted response. */
    abandonRequest: sendTo("requestModel", { type: "run.abandon" }),
    /**
     * Passes `run.abort` / `run.abandon` on to the batch: it warns about and cancels
     * its unsettled calls. A batch that already finished (its done event is on its
     * way) is not told: XState would warn of an event sent to a stopped actor.
     */
    forwardToBatch: enqueueActions(({ enqueue, self }, params: { type: "run.abort" | "run.abandon" }) => {
      const batch = (self.getSnapshot() as { children?: Record<string, AnyActorRef | undefined> } | undefined)?.children?.toolBatch;
      if (batch !== undefined && batch.getSnapshot().status !== "active") return;
      enqueue.sendTo("toolBatch", { type: params.type });
    }),
    /** The direct path, as the batch does for its unsettled calls: the abort reaches each (awaiting approval it settles aborted; else it honours the run's signal). */
    abortAloneCalls: enqueueActions(({ context, enqueue }) => {
      for (const index of unsettledAloneCalls(context)) enqueue.sendTo(callActorId(index), { type: "call.abort", reason: ABORTED_MESSAGE });
    }),
    /** The direct path, as the batch does: a warning naming the calls the run stops waiting on, and each cancelled (it settles aborted). */
    abandonAloneCalls: enqueueActions(({ context, enqueue }) => {
      enqueue.emit(abandonWarning(context, aloneCallsWaitedOn(context)));
      for (const index of unsettledAloneCalls(context)) enqueue.sendTo(callActorId(index), { type: "call.cancel", reason: ABORTED_MESSAGE });
    }),
    /** The direct path: spawns the calls as the batch would spawn them, in source order (`alone-call.ts`). */
    startAloneCalls: enqueueActions(({ context, enqueue }) => {
      spawnAloneCalls(context, (id, systemId, input) => enqueue.spawnChild("toolCall", systemId === undefined ? { id, input } : { id, systemId, input }));
    }),
    /** The direct path: a call settled that is not the last; its result is kept until the others settle. */
    recordAloneSettled: assign(({ context }, settled: AloneCallSettled) => ({ settledCalls: withSettled(context, settled) })),
    /** Leaving the direct path stops its calls (they settled, or the run ended): their `done` state is not final. */
    stopAloneCalls: enqueueActions(({ context, enqueue }) => {
      const count = callCountOf(context.assistant);
      for (let index = 0; index < count; index += 1) enqueue.stopChild(callActorId(index));
    }),
    /**
     * Hands a decision to the call it names, found by its system id (whatever the
     * batch structure). `always` also records the tool as approved for good and
     * tells the batch's other calls of that tool. A call that is unknown or not
     * waiting gets nothing: the loop emits a `warning` instead. After an abort an
     * approval aborts the call instead of running it.
     */
    routeDecision: enqueueActions(({ context, enqueue, system }, decision: ApprovalDecisionEvent) => {
      const call = system.get(callSystemId(decision.toolCallId)) as AnyActorRef | undefined;
      const snapshot = call?.getSnapshot() as { value?: unknown; context?: ToolCallContext } | undefined;
      if (!call || !snapshot?.context) {
        enqueue.emit(approvalWarning(decision.toolCallId, "is not a call of the current tool batch"));
        return;
      }
      if (!awaitsApproval(snapshot.value)) {
        const { approval, settled } = snapshot.context;
        const problem =
          approval === "approved" ? "was already approved" : approval === "asked" && settled ? "was already rejected or aborted" : "is not awaiting approval";
        enqueue.emit(approvalWarning(decision.toolCallId, problem));
        return;
      }
      if (decision.type === "tool.reject") {
        enqueue.sendTo(call, { type: "call.reject", ...(decision.reason !== undefined ? { reason: decision.reason } : {}) });
        return;
      }
      if (context.aborted) {
        enqueue.sendTo(call, { type: "call.abort", reason: ABORTED_MESSAGE });
        return;
      }
      enqueue.sendTo(call, { type: "call.approve" });
      const toolName = snapshot.context.toolCall.name;
      if (decision.always !== true || context.approvedTools.includes(toolName)) return;
      enqueue.assign({ approvedTools: [...context.approvedTools, toolName] });
      // The batch's calls (by their ids as the batch makes them), wherever in the batch they live.
      const calls = toolCallsOf(context.assistant);
      uniqueCallIds(calls).forEach((id, index) => {
        const sibling = calls[index]?.name === toolName && id !== decision.toolCallId ? system.get(callSystemId(id)) : undefined;
        if (sibling) enqueue.sendTo(sibling as AnyActorRef, { type: "call.preapprove" });
      });
    }),
    exitWith: assign((_, params: { reason: ExitReason; errorMessage?: string }) => ({
      exitReason: params.reason,
      ...(params.errorMessage !== undefined ? { errorMessage: params.errorMessage } : {}),
    })),
    exitFromResponse: assign(({ context }) => ({
      exitReason: (context.assistant?.stopReason === "aborted" ? "aborted" : "error") as ExitReason,
      ...(context.assistant?.errorMessage !== undefined ? { errorMessage: context.assistant.errorMessage } : {}),
    })),
    exitAfterPolling: assign(({ context }) => ({
      exitReason: (context.terminated ? "terminated" : "completed") as ExitReason,
    })),
    failTurn: enqueueActions(({ context, enqueue }, params: { errorMessage: string }) => {
      const message = failedResponse(context.model, params.errorMessage);
      enqueue.emit({ type: "message_start", message });
      enqueue.emit({ type: "message_end", message });
      enqueue.assign({ ...appended(context, [message]), assistant: message, toolResults: [] });
    }),
    /**
     * Begins a compaction: records why (a snapshot taken now restores into
     * `compacting` and compacts again) and emits `compaction_start`. After an
     * overflow the turn is marked retried, and the overflowing response is
     * dropped: it never joins the transcript.
     */
    startCompaction: enqueueActions(({ context, enqueue }, params: { reason: CompactionReason; discarded?: AssistantMessage; instructions?: string }) => {
      const pending = { reason: params.reason, tokensBefore: contextTokens(context), ...(params.instructions !== undefined ? { instructions: params.instructions } : {}) };
      const retried = params.reason === "overflow" || params.reason === "length";
      enqueue.assign({
        limits: {
          ...context.limits,
          // The state so far stays (where earlier compactions of the run kept from, how many there were): a session maps its transcript onto the log by it.
          compaction: { ...(context.limits.compaction ?? { usageFrom: 0 }), ...(retried ? { retriedTurn: context.turn } : {}), pending },
        },
      });
      enqueue.emit(compactionStartEvent(pending, params.discarded));
    }),
    /** Ends a compaction: the transcript becomes the summary message and the kept messages; emits `compaction_end`. */
    applyCompaction: enqueueActions(({ context, enqueue }, result: CompactionResult) => {
      const state = context.limits.compaction;
      const reason = state?.pending?.reason ?? "threshold";
      const messages = result.compacted && result.summaryMessage ? transcriptOf([result.summaryMessage, ...transcriptMessages(context.messages).slice(result.replaced)]) : context.messages;
      enqueue.assign({ messages, limits: { ...context.limits, compaction: compactedState(state, reason, result, messages.length) } });
      enqueue.emit(compactionEndEvent(reason, result));
    }),

    emitRunEnd: emit(({ context }) => ({
      type: "agent_end" as const,
      messages: transcriptMessages(context.newMessages),
      exitReason: finalExitReason(context),
      ...(context.errorMessage !== undefined ? { errorMessage: context.errorMessage } : {}),
    })),
  },
});
