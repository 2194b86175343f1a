/**
 * loopchart/dbos — runs of the loop as durable DBOS workflows on Postgres.
 * Needs the optional peer dependency `@dbos-inc/dbos-sdk` 5.x.
 */
export { DEFAULT_LOOP_WORKFLOW_NAME, registerLoopWorkflow, type DbosLoop, type DbosLoopOptions, type DbosRunInput, type DbosRunOutput, type DbosRunSetup } from "./loop-workflow.js";
export { EVENTS_STREAM_KEY, type DbosStreamedEvent } from "./event-channel.js";
export { INTERRUPTED_BY_RESTART_MESSAGE, replayOf, type DbosReplay } from "./replay-policy.js";
export { InterruptedByRestartError, type SafeRetry } from "./durable-tools.js";
