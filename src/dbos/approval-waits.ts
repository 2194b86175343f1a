/**
 * The workflow side of approval: one durable wait (`DBOS.recv`) per call that asks, its
 * answer handed to the loop, and a wake-up for waits the run no longer needs.
 */
import { DBOS } from "@dbos-inc/dbos-sdk";
import { APPROVAL_REQUESTED_STEP, approvalTopic, type DbosApprovalAnswer, type DbosApprovalWake, type DbosPendingApproval } from "./approval.js";
import { APPROVAL_WAIT_SECONDS } from "./constants.js";
import type { EventChannel } from "./event-channel.js";

/** The waits of one workflow execution. */
export interface ApprovalWaits {
  /**
   * Starts the wait of a call (synchronously: its step numbers are taken now). A step first
   * records the request and writes the events so far, so followers see it while it waits.
   */
  start(request: DbosPendingApproval): void;
  /** Inside the last step: sends a wake-up to every wait still open (its call settled another way). */
  wakeUnanswered(): Promise<void>;
  /** Resolves once every wait has returned. */
  finished(): Promise<void>;
}

/** `deliver` gets each answer (a wait that times out is a rejection). */
export function createApprovalWaits(channel: EventChannel, deliver: (toolCallId: string, answer: DbosApprovalAnswer) => void): ApprovalWaits {
  const open = new Map<string, Promise<void>>();
  const all: Promise<void>[] = [];
  return {
    start(request) {
      channel.step(APPROVAL_REQUESTED_STEP, async () => request).catch(() => {});
      const { toolCallId } = request;
      const wait = DBOS.recv<DbosApprovalAnswer | DbosApprovalWake>(approvalTopic(toolCallId), { timeoutSeconds: APPROVAL_WAIT_SECONDS }).then((message) => {
        open.delete(toolCallId);
        if (message === null) deliver(toolCallId, { decision: "reject", reason: `No answer within ${APPROVAL_WAIT_SECONDS} seconds.` });
        else if (message.decision !== "wake") deliver(toolCallId, message);
      });
      open.set(toolCallId, wait);
      all.push(wait);
    },
    async wakeUnanswered() {
      for (const toolCallId of [...open.keys()]) await DBOS.send<DbosApprovalWake>(DBOS.workflowID as string, { decision: "wake" }, approvalTopic(toolCallId));
    },
    async finished() {
      await Promise.all(all);
    },
  };
}
