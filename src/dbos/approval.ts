/**
 * Approval through DBOS durable messages. A call awaiting approval waits on the message topic
 * of its tool call id (`DBOS.recv`); any process answers with `DBOS.send` / `DBOSClient.send`
 * ({@link answerApproval}), also while no worker runs the workflow: the message waits in
 * Postgres and the recovered workflow receives it.
 */
import { APPROVAL_TOPIC_PREFIX } from "./constants.js";

/** The name of the step a run records when a call starts waiting; its output is a {@link DbosPendingApproval}. */
export const APPROVAL_REQUESTED_STEP = "loopchart.approval.requested";

/** A call of a run that waits for an answer. */
export interface DbosPendingApproval {
  toolCallId: string;
  toolName: string;
}

/** What lists a workflow's recorded operations: a `DBOSClient`, or the `DBOS` class. */
export interface DbosStepLister {
  listWorkflowSteps(workflowID: string): Promise<ReadonlyArray<{ functionID: number; name: string; output: unknown }> | undefined>;
}

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

/**
 * The calls of run `runId` that wait for an answer now: each waiting call recorded an
 * {@link APPROVAL_REQUESTED_STEP} step and took the next operation number for its `recv`,
 * which is recorded only once the answer arrived. A call answered but not yet run is not
 * listed. Empty for an unknown run.
 */
export async function pendingApprovals(lister: DbosStepLister, runId: string): Promise<DbosPendingApproval[]> {
  const steps = (await lister.listWorkflowSteps(runId)) ?? [];
  const recorded = new Set(steps.map((step) => step.functionID));
  return steps
    .filter((step) => step.name === APPROVAL_REQUESTED_STEP && !recorded.has(step.functionID + 1))
    .map((step) => step.output as DbosPendingApproval);
}
