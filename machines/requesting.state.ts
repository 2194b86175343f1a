/**
 * `requesting`: one turn's way to the model's response, a region of the loop chart
 * (`agent-loop.machine.ts`).
 *
 *   starting ─┬─ pollsSteering ─▶ pollingInitialSteering ─┐      (first turn only)
 *             └───────────────────────────────────────────┴▶ injectingPending
 *   injectingPending ─┬─ preparesRequest ─▶ preparingRequest ─┐
 *                     └───────────────────────────────────────┴▶ awaitingResponse
 *   awaitingResponse ─ model.done ─▶ dispatching (.alone: one plain call) | betweenTurns (finishingTurn | endingTurn) | done
 *
 * With compaction (`settings.compaction`), `compacting` summarizes older history:
 * entered from `injectingPending` when the estimated context passes
 * `contextWindow − reserveTokens` (contextTooLarge), and from `awaitingResponse`
 * when the response overflowed (compactsAfterOverflow: the response is dropped and
 * the request retried once; overflowPersists ends the run `error`). Without it no
 * guard here is true and `compacting` is never entered.
 *
 * A later turn enters at `injectingPending` (from `betweenTurns`). The turn has
 * started (`turn_start` was emitted), so a hook that fails or is abandoned here
 * ends it with a failed response before `turn_end`: that handling is declared
 * once, on this region, for every hook it invokes. The model request itself is
 * never abandoned from here: it is told to give up and answers with an aborted
 * response.
 */
import { ABORTED_MESSAGE, LENGTH_TRUNCATION_MESSAGE, prepareRequestInput } from "./loop-context.js";
import { WRAP_UP_REFUSAL_MESSAGE } from "./loop-policies.js";
import type { RequestModelInput } from "./events.js";
import { persistentOverflowResponse, type CompactContextInput, type CompactionResult } from "./compaction-policy.js";
import { agentLoopSetup, hookFailureOf } from "./agent-loop.setup.js";

/** What the run waits on while the model request is out (an abandonment warning names it). */
const MODEL_REQUEST = "the model request (transformContext, convertToLlm, getApiKey or the stream)";

export const requestingState = agentLoopSetup.createStateConfig({
  initial: "starting",
  on: {
    "run.abandon": {
      target: "#agentLoop.done",
      actions: ["warnAbandoned", { type: "failTurn", params: { errorMessage: ABORTED_MESSAGE } }, "emitTurnEnd", { type: "exitWith", params: { reason: "aborted" } }],
    },
    "xstate.error.actor.*": {
      target: "#agentLoop.done",
      actions: [
        { type: "failTurn", params: ({ event }) => hookFailureOf(event) },
        "emitTurnEnd",
        { type: "exitWith", params: ({ event }) => hookFailureOf(event) },
      ],
    },
  },
  states: {
    starting: {
      entry: "emitRunStart",
      always: [{ guard: "pollsSteering", target: "pollingInitialSteering" }, { target: "injectingPending" }],
    },
    pollingInitialSteering: {
      invoke: {
        id: "pollSteering",
        src: "pollSteering",
        onDone: { target: "injectingPending", actions: { type: "setPending", params: ({ event }) => ({ messages: event.output }) } },
      },
    },
    // Pending messages (steering, follow-up, prepareNextTurn's) join the transcript before each request.
    injectingPending: {
      entry: "injectPending",
      always: [
        { guard: "contextTooLarge", target: "compacting", actions: { type: "startCompaction", params: { reason: "threshold" } } },
        { guard: "preparesRequest", target: "preparingRequest" },
        { target: "awaitingResponse" },
      ],
    },
    // Compaction: the summarizer replaces older history by its summary; then the request (again, after an overflow).
    compacting: {
      invoke: {
        id: "compactContext",
        src: "compactContext",
        input: ({ context }): CompactContextInput => ({
          messages: context.messages,
          systemPrompt: context.systemPrompt,
          model: context.model,
          settings: context.settings.compaction as NonNullable<typeof context.settings.compaction>,
          reason: context.limits.compaction?.pending?.reason ?? "threshold",
          ...(context.limits.compaction?.pending?.instructions !== undefined ? { instructions: context.limits.compaction.pending.instructions } : {}),
        }),
        onDone: [
          { guard: "preparesRequestAfterCompaction", target: "preparingRequest", actions: { type: "applyCompaction", params: ({ event }) => event.output as CompactionResult } },
          { target: "awaitingResponse", actions: { type: "applyCompaction", params: ({ event }) => event.output as CompactionResult } },
        ],
      },
    },
    // pi 1.x: prepareRequest may replace the context, model and thinking level from this request on.
    preparingRequest: {
      invoke: {
        id: "prepareRequest",
        src: "prepareRequest",
        input: ({ context }) => prepareRequestInput(context),
        onDone: { target: "awaitingResponse", actions: { type: "applyNextTurnUpdate", params: ({ event }) => event.output } },
      },
    },
    awaitingResponse: {
      invoke: {
        id: "requestModel",
        src: "requestModel",
        input: ({ context }): RequestModelInput => ({
          systemPrompt: context.systemPrompt,
          messages: context.messages,
          model: context.model,
          thinkingLevel: context.thinkingLevel,
          turn: context.turn,
          ...(context.limits.wrappingUp !== undefined ? { withoutTools: true as const } : {}),
        }),
      },
      on: {
        "run.abandon": { actions: [{ type: "warnAbandoned", params: { waitingOn: MODEL_REQUEST } }, "abandonRequest", "markAbandoned"] },
        // Every branch accepts the response first; the guards read it from the event.
        "model.done": [
          // Compaction only: a response that overflowed the window is dropped; compact, then retry once.
          {
            guard: { type: "compactsAfterOverflow", params: ({ event }) => event.message },
            target: "compacting",
            actions: {
              type: "startCompaction",
              params: ({ event }) => ({ reason: event.message.stopReason === "length" ? ("length" as const) : ("overflow" as const), discarded: event.message }),
            },
          },
          {
            guard: { type: "overflowPersists", params: ({ event }) => event.message },
            target: "#agentLoop.done",
            actions: [
              { type: "acceptResponse", params: ({ event }) => ({ message: persistentOverflowResponse(event.message), started: event.started }) },
              "emitTurnEnd",
              "exitFromResponse",
            ],
          },
          {
            guard: { type: "finishesFailedTurn", params: ({ event }) => event.message },
            target: "#agentLoop.betweenTurns.finishingTurn",
            actions: { type: "acceptResponse", params: ({ event }) => event },
          },
          {
            guard: { type: "responseFailed", params: ({ event }) => event.message },
            target: "#agentLoop.done",
            actions: [{ type: "acceptResponse", params: ({ event }) => event }, "emitTurnEnd", "exitFromResponse"],
          },
          {
            guard: { type: "finishesAnsweredTurn", params: ({ event }) => event.message },
            target: "#agentLoop.betweenTurns.finishingTurn",
            actions: { type: "acceptResponse", params: ({ event }) => event },
          },
          {
            guard: { type: "hasNoToolCalls", params: ({ event }) => event.message },
            target: "#agentLoop.betweenTurns.endingTurn",
            actions: [{ type: "acceptResponse", params: ({ event }) => event }, "endInvalidStreak"],
          },
          {
            guard: { type: "isLengthTruncated", params: ({ event }) => event.message },
            target: "#agentLoop.dispatching.batch",
            actions: [{ type: "acceptResponse", params: ({ event }) => event }, { type: "refuseCalls", params: { refusal: LENGTH_TRUNCATION_MESSAGE } }],
          },
          // The wrap-up request offered no tools: a call it makes anyway is refused, not run.
          {
            guard: "isWrapUpTurn",
            target: "#agentLoop.dispatching.batch",
            actions: [{ type: "acceptResponse", params: ({ event }) => event }, { type: "refuseCalls", params: { refusal: WRAP_UP_REFUSAL_MESSAGE } }],
          },
          // One plain call: the loop runs it itself, without a batch (the direct path).
          {
            guard: { type: "runsAlone", params: ({ event }) => event.message },
            target: "#agentLoop.dispatching.alone",
            actions: { type: "acceptResponse", params: ({ event }) => event },
          },
          { target: "#agentLoop.dispatching.batch", actions: { type: "acceptResponse", params: ({ event }) => event } },
        ],
      },
    },
  },
});
