/**
 * What the loop waits on: the outside work each waiting state's invoked actor
 * stands for (what an abandonment warning and a failure's `errorMessage` name),
 * and the error event a failing invoked actor sends. Pure reads, no I/O.
 */
import type { AnyActorRef } from "xstate";
import type { ExitReason } from "../src/types.js";
import { hookFailure } from "./loop-context.js";

/**
 * A failing invoked actor's error event, as the compound states that share one
 * handler for every hook they invoke (`xstate.error.actor.*`) receive it.
 */
export type InvokeErrorEvent = { type: `xstate.error.actor.${string}`; error: unknown };

/**
 * The outside work a waiting state's invoked actor stands for, by invoke id: what
 * an abandonment warning and a failure's `errorMessage` name.
 */
export const AWAITED_BY_INVOKE: Readonly<Record<string, string>> = {
  pollSteering: "getSteeringMessages",
  pollFollowUp: "getFollowUpMessages",
  checkStopAfterTurn: "shouldStopAfterTurn",
  prepareNextTurn: "prepareNextTurn",
  prepareRequest: "prepareRequest",
  finishTurn: "finishTurn",
  invalidCallHint: "the invalid-call hint",
  compactContext: "the compaction summarizer",
  // Its actor never throws (a failing stream is a failed response); if it did, `requesting` would end the turn as for a hook.
  requestModel: "the model request",
};

/** What the invoke whose error or done event is `eventType` (`xstate.error.actor.<id>`) stands for. */
export function awaitedOf(eventType: string): string {
  const id = eventType.slice(eventType.lastIndexOf(".") + 1);
  return AWAITED_BY_INVOKE[id] ?? id;
}

/** The `failTurn`/`exitWith` parameters of a failing invoked hook's error event. */
export const hookFailureOf = (event: InvokeErrorEvent): { reason: ExitReason; errorMessage: string } => hookFailure(awaitedOf(event.type), event.error);

/**
 * What the loop waits on now, from its live children (the snapshot an action
 * sees is the one before the step). Where the actor gives no snapshot (a pure
 * exploration's stand-in `self`), "a hook".
 */
export function awaitedNow(self: AnyActorRef): string {
  const children = (self.getSnapshot() as { children?: Record<string, unknown> } | undefined)?.children ?? {};
  const id = Object.keys(children).find((child) => child in AWAITED_BY_INVOKE);
  return id !== undefined ? (AWAITED_BY_INVOKE[id] as string) : "a hook";
}
