/**
 * Approval through DBOS durable messages. A call awaiting approval waits on the message topic
 * of its tool call id (`DBOS.recv`); any process answers with `DBOS.send` / `DBOSClient.send`
 * ({@link answerApproval}), also while no worker runs the workflow: the message waits in
 * Postgres and the recovered workflow receives it.
 */
import { APPROVAL_TOPIC_PREFIX } from "./constants.js";

/** The answer to a call awaiting approval, as sent to its run. */
export type DbosApprovalAnswer = { decision: "approve"; always?: boolean } | { decision: "reject"; reason?: string };

/** What the workflow itself sends a wait it no longer needs (the call was settled another way). */
export interface DbosApprovalWake {
  decision: "wake";
}

/** The message topic the call `toolCallId` waits on. */
export function approvalTopic(toolCallId: string): string {
  return `${APPROVAL_TOPIC_PREFIX}${toolCallId}`;
}

/** What sends DBOS messages: a `DBOSClient`, or the `DBOS` class inside a DBOS process. */
export interface DbosMessageSender {
  send<T>(destinationID: string, message: T, topic?: string, idempotencyKey?: string): Promise<void>;
}

/**
 * Sends `answer` to the call `toolCallId` of run `runId`. Idempotent: a second answer for the
 * same call is dropped by DBOS (same idempotency key), so the first answer wins. Throws what
 * `send` throws (e.g. for a run id that does not exist). Does not check that the call waits:
 * `loopchart approve` does, from the run's events.
 */
export async function answerApproval(sender: DbosMessageSender, runId: string, toolCallId: string, answer: DbosApprovalAnswer): Promise<void> {
  await sender.send(runId, answer, approvalTopic(toolCallId), `${runId}:${approvalTopic(toolCallId)}`);
}
