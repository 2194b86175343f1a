/**
 * The agent loop as one statechart. Its top level is the seed's cycle:
 *
 *   requesting ──▶ dispatching ──▶ appending ──▶ betweenTurns ─┬─▶ requesting (the next turn)
 *        │                                        ▲            └─▶ done (final; the exit reason on the output)
 *        └─ a response without tool calls ────────┘
 *
 * - **requesting** (`requesting.state.ts`): the first turn's steering poll, the
 *   pending messages joining the transcript, `prepareRequest`, then the model
 *   request; its response goes on to `dispatching`, to `betweenTurns` (no tool
 *   calls), or ends the run (a failed response).
 * - **dispatching**: invokes the tool batch machine (`tool-batch.machine.ts`),
 *   whose call actors each go `preparing` → `executing` → `finalizing`; a
 *   length-truncated response (or a call the wrap-up request makes) gets every
 *   call refused. The loop sees one event per batch: its done event.
 * - **appending**: the backfill. A parallel batch's result messages are emitted
 *   (`message_start`/`message_end`) in source order and its results appended; a
 *   sequential batch emitted each result message right after its call (as pi
 *   does), so `appending` only appends them.
 * - **betweenTurns** (`between-turns.state.ts`): `finishTurn`, `turn_end`,
 *   `shouldStopAfterTurn`, the steering poll, the decision, the follow-up poll,
 *   the invalid-call breaker, the budget and `maxTurns` (and their wrap-up
 *   request), `prepareNextTurn` — each nested state entered only when the run has
 *   that hook or policy.
 * - **done**: final; emits `agent_end`.
 *
 * `run.abort` is declared once, on the machine (`dispatching` also passes it to
 * the batch); a hook's failure and the abandonment after the abort's grace period
 * are declared once on each compound region that invokes hooks. Guards, actions
 * and actors are referenced by name (`agent-loop.setup.ts`).
 */
import { transcriptMessages, transcriptOf } from "./transcript.js";
import { DEFAULT_INVALID_CALL_LIMIT } from "./loop-policies.js";
import { batchInput, finalExitReason } from "./loop-context.js";
import { ABORT_GRACE_MS, agentLoopSetup, batchOutputOf } from "./agent-loop.setup.js";
import { requestingState } from "./requesting.state.js";
import { betweenTurnsState } from "./between-turns.state.js";

export {
  ABORTED_MESSAGE,
  LENGTH_TRUNCATION_MESSAGE,
  type AgentLoopContext,
  type AgentLoopHooks,
  type AgentLoopInput,
  type AgentLoopOutput,
  type RunSettings,
} from "./loop-context.js";
export { ABORT_GRACE_MS } from "./agent-loop.setup.js";

export const agentLoopMachine = agentLoopSetup.createMachine({
  id: "agentLoop",
  context: ({ input }) => ({
    systemPrompt: input.systemPrompt,
    messages: transcriptOf(input.messages),
    newMessages: transcriptOf(input.prompts),
    pending: [],
    model: input.model,
    thinkingLevel: input.thinkingLevel ?? "off",
    settings: {
      prompts: input.prompts,
      toolExecution: input.toolExecution ?? "parallel",
      sequentialTools: input.sequentialTools ?? [],
      ...(input.maxTurns !== undefined ? { maxTurns: input.maxTurns } : {}),
      hooks: {
        beforeToolCall: input.hooks?.beforeToolCall ?? false,
        afterToolCall: input.hooks?.afterToolCall ?? false,
        steering: input.hooks?.steering ?? false,
        followUp: input.hooks?.followUp ?? false,
        shouldStopAfterTurn: input.hooks?.shouldStopAfterTurn ?? false,
        prepareNextTurn: input.hooks?.prepareNextTurn ?? false,
        prepareRequest: input.hooks?.prepareRequest ?? false,
        finishTurn: input.hooks?.finishTurn ?? false,
        needsApproval: input.hooks?.needsApproval ?? false,
      },
      abortGraceMs: input.abortGraceMs ?? ABORT_GRACE_MS,
      invalidCallLimit: input.invalidCallLimit ?? DEFAULT_INVALID_CALL_LIMIT,
      onInvalidCallLimit: input.onInvalidCallLimit ?? "stop",
      ...(input.wrapUp !== undefined ? { wrapUp: input.wrapUp } : {}),
      ...(input.budget !== undefined ? { budget: input.budget } : {}),
      ...(input.toolPolicies !== undefined ? { toolPolicies: input.toolPolicies } : {}),
      ...(input.maxParallelCalls !== undefined ? { maxParallelCalls: input.maxParallelCalls } : {}),
      registersCalls: input.registersCalls === true,
      ...(input.compaction !== undefined ? { compaction: input.compaction } : {}),
    },
    limits: {},
    approvedTools: input.approvedTools ?? [],
    turn: 1,
    toolResults: [],
    terminated: false,
    aborted: false,
  }),
  on: {
    "run.abort": { guard: "notAborted", actions: ["markAborted", "scheduleAbandon"] },
    "tool.approve": { actions: { type: "routeDecision", params: ({ event }) => event } },
    "tool.reject": { actions: { type: "routeDecision", params: ({ event }) => event } },
  },
  initial: "requesting",
  states: {
    requesting: requestingState,
    dispatching: {
      on: {
        "run.abort": { guard: "notAborted", actions: ["markAborted", "scheduleAbandon", { type: "forwardToBatch", params: { type: "run.abort" } }] },
        // The abandon fires once: after it, the run calls no further hook (one could hang it for good).
        "run.abandon": { actions: [{ type: "forwardToBatch", params: { type: "run.abandon" } }, "markAbandoned"] },
      },
      invoke: {
        id: "toolBatch",
        src: "toolBatch",
        input: ({ context }) => batchInput(context),
        onDone: { target: "appending" },
      },
    },
    // The backfill: the batch's results join the transcript in source order (a parallel batch's messages are emitted here).
    appending: {
      entry: { type: "appendBatchResults", params: ({ event }) => batchOutputOf(event) },
      always: [{ guard: "asksFinishTurn", target: "betweenTurns.finishingTurn" }, { target: "betweenTurns.endingTurn" }],
    },
    betweenTurns: betweenTurnsState,
    done: {
      type: "final",
      entry: "emitRunEnd",
    },
  },
  output: ({ context }) => ({
    exitReason: finalExitReason(context),
    messages: transcriptMessages(context.newMessages),
    ...(context.errorMessage !== undefined ? { errorMessage: context.errorMessage } : {}),
  }),
});

