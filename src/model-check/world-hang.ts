/**
 * The world's "what is pending never settles" step: nothing the run awaits
 * answers again; the abort comes (if it has not), then its grace period ends (if
 * it has not), and the run must then be done. See `loop-world.ts`.
 */
import { ABORTED_MESSAGE } from "../../machines/loop-context.js";
import type { ToolCallContext } from "../../machines/tool-call.machine.js";
import type { StepViolation } from "./protocol-monitor.js";
import type { LoopWorldState, SentEvent, WorldEvent } from "./loop-world-types.js";
import { marksInvalid, pendingOf, result, SETTLE_TEXT, waitingOn } from "./world-answers.js";

/** Where a queued event goes: the loop, or a call (by id). */
export type HangDelivery = { to: "loop" | { call: string }; event: SentEvent };

/** One step of the world from `state`: delivers `delivery` (with the world event `event` it stands for). */
export type WorldStep = (state: LoopWorldState, delivery: HangDelivery, event?: WorldEvent) => LoopWorldState;

/**
 * Nothing pending ever settles again: the abort comes (if it has not), then its
 * grace period ends (if it has not), and the run must then be done. Work that
 * runs no user function still settles as it does at run time: preparation without
 * `beforeToolCall` (synchronous), preparation or execution that starts after the
 * abort (it settles at once as aborted), and the model request told to give up.
 */
export function hangWorld(state: LoopWorldState, run: WorldStep, abort: WorldEvent, abandon: WorldEvent): LoopWorldState {
  const hungBefore = new Set(
    state.calls.flatMap((call) => {
      const pending = pendingOf(call);
      const hooked = (call.snapshot.context as ToolCallContext).hooks?.beforeToolCall === true;
      return pending && (pending.src !== "prepareCall" || hooked) ? [call.id] : [];
    }),
  );
  let at = state;
  const settleWhatRunsNoUserCode = () => {
    for (let settled = true; settled && at.status === "active" && at.violations.length === 0; ) {
      settled = false;
      for (const call of at.calls) {
        const pending = pendingOf(call);
        if (!pending || hungBefore.has(call.id)) continue;
        const context = call.snapshot.context as ToolCallContext;
        let output: unknown;
        if (pending.src === "prepareCall" && !at.monitor.aborted) {
          output = marksInvalid(context) ? { settled: { result: result(SETTLE_TEXT.invalid, false), isError: true, rejected: "invalidArguments" } } : { args: context.toolCall.arguments };
        } else if (pending.src === "prepareCall") output = { settled: { result: result(ABORTED_MESSAGE, false), isError: true } };
        else if (pending.src === "executeTool") output = { result: result(ABORTED_MESSAGE, false), isError: true };
        else continue;
        at = run(at, { to: { call: call.id }, event: { type: `xstate.done.actor.${pending.id}`, output } });
        settled = true;
        break;
      }
    }
  };
  settleWhatRunsNoUserCode();
  for (const step of [at.monitor.aborted ? undefined : abort, at.abandoned ? undefined : abandon]) {
    if (!step || at.status !== "active" || at.violations.length > 0) continue;
    at = run(at, { to: "loop", event: step.send as SentEvent }, step);
    settleWhatRunsNoUserCode();
  }
  if (at.status !== "active" || at.violations.length > 0) return at;
  const stuck: StepViolation = {
    invariant: "I3",
    message: `the run never ends when what it awaits never settles: after the abort and its grace period it still waits on ${waitingOn(at)} (in ${JSON.stringify(at.loop.value)})`,
  };
  return { ...at, violations: [stuck] };
}
