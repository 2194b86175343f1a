/**
 * The agent loop as one statechart. Its top level is the seed's cycle:
 *
 *   requesting ──▶ dispatching ──▶ appending ──▶ betweenTurns ─┬─▶ requesting (the next turn)
 *        │                            │           ▲            └─▶ done (final; the exit reason on the output)
 *        │                            └─ plainTurn ─▶ requesting (the plain turn: turn_end, the next request)
 *        └─ a response without tool calls ────────┘
 *
 * - **requesting** (`requesting.state.ts`): the first turn's steering poll, the
 *   pending messages joining the transcript, `prepareRequest`, then the model
 *   request; its response goes on to `dispatching`, to `betweenTurns` (no tool
 *   calls), or ends the run (a failed response).
 * - **dispatching** (`dispatching.state.ts`): `batch` invokes the tool batch
 *   machine (`tool-batch.machine.ts`), whose call actors each go `preparing` →
 *   `executing` → `finalizing`; a length-truncated response (or a call the
 *   wrap-up request makes) gets every call refused. The loop sees one event per
 *   batch: its done event. A response with plain calls takes the direct path,
 *   `alone`: the loop runs the calls' actors itself (`alone-call.ts`).
 * - **appending**: the backfill. A parallel batch's result messages are emitted
 *   (`message_start`/`message_end`) in source order and its results appended; a
 *   sequential batch emitted each result message right after its call (as pi
 *   does), so `appending` only appends them. The direct path's are emitted here.
 *   A plain turn (`plainTurn`, `plain-turn.ts`) emits `turn_end` and
 *   starts the next request from here, without entering `betweenTurns`.
 * - **betweenTurns** (`between-turns.state.ts`): `finishTurn`, `turn_end`,
 *   `shouldStopAfterTurn`, the steering poll, the decision, the follow-up poll,
 *   the invalid-call breaker, the budget and `maxTurns` (and their wrap-up
 *   request), `prepareNextTurn` — each nested state entered only when the run has
 *   that hook or policy.
 * - **done**: final; emits `agent_end`.
 *
 * `run.abort` is declared once, on the machine (`dispatching`'s children also
 * pass it to the batch, or the direct path's calls); a hook's failure and the abandonment after the abort's grace period
 * are declared once on each compound region that invokes hooks. Guards, actions
 * and actors are referenced by name (`agent-loop.setup.ts`).
 */
import { transcriptMessages, transcriptOf } from "./transcript.js";
import { DEFAULT_INVALID_CALL_LIMIT } from "./loop-policies.js";
import { finalExitReason } from "./loop-context.js";
import { ABORT_GRACE_MS, agentLoopSetup } from "./agent-loop.setup.js";
import { dispatchOutputOf } from "./alone-call.js";
import { dispatchingState } from "./dispatching.state.js";
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
      approvalTools: input.approvalTools ?? [],
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
    dispatching: dispatchingState,
    // The backfill: the batch's results join the transcript in source order (a parallel batch's messages are emitted here).
    appending: {
      entry: { type: "appendBatchResults", params: ({ context, event }) => dispatchOutputOf(context, event) },
      always: [
        { guard: "asksFinishTurn", target: "betweenTurns.finishingTurn" },
        // The plain turn (`plain-turn.ts`): turn_end, and the next request at once.
        { guard: "plainTurn", target: "requesting.awaitingResponse", actions: ["emitTurnEnd", "startTurn", "emitTurnStart"] },
        { target: "betweenTurns.endingTurn" },
      ],
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

