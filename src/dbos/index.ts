/**
 * loopchart/dbos — runs of the loop as durable DBOS workflows on Postgres.
 * Needs the optional peer dependency `@dbos-inc/dbos-sdk` 5.x.
 */
export { registerLoopWorkflow, type DbosLoop, type DbosLoopOptions, type DbosRunInput, type DbosRunOutput, type DbosRunSetup, type DbosStartParams } from "./loop-workflow.js";
export { EVENTS_STREAM_KEY, type DbosStreamedEvent } from "./event-channel.js";
export { enqueueRun, type EnqueueRunOptions } from "./enqueue-run.js";
export { promptText } from "./prompt-text.js";
export { followRunEvents, type DbosStreamReader } from "./follow-run.js";
export {
  APPROVAL_REQUESTED_STEP,
  answerApproval,
  approvalTopic,
  pendingApprovals,
  type DbosApprovalAnswer,
  type DbosApprovalWake,
  type DbosMessageSender,
  type DbosPendingApproval,
  type DbosStepLister,
} from "./approval.js";
export { INTERRUPTED_BY_RESTART_MESSAGE, replayOf, type DbosReplay } from "./replay-policy.js";
export { InterruptedByRestartError, type SafeRetry } from "./durable-tools.js";
export {
  APPROVAL_TOPIC_PREFIX,
  APPROVAL_WAIT_SECONDS,
  DBOS_APP_NAME,
  DEFAULT_DBOS_QUEUE,
  DEFAULT_LOOP_WORKFLOW_NAME,
  DEFAULT_WORKER_CONCURRENCY,
  QUEUE_POLLING_INTERVAL_MS,
} from "./constants.js";
export { startWorker, type DbosWorker, type DbosWorkerOptions } from "./worker.js";
