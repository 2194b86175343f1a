/**
 * Names and defaults shared by workers and clients. No DBOS import here, so the CLI can use
 * them before it knows whether the optional SDK is installed.
 */

/** The queue workers serve and runs are enqueued on when none is named. */
export const DEFAULT_DBOS_QUEUE = "loopchart";
/** The DBOS application name workers and clients use (it scopes workflows and queues). */
export const DBOS_APP_NAME = "loopchart";
/** Runs one worker takes at a time when `workerConcurrency` is not given. */
export const DEFAULT_WORKER_CONCURRENCY = 4;
/** How often an idle worker polls its queue, at least (DBOS's default is 1000 ms). */
export const QUEUE_POLLING_INTERVAL_MS = 100;
/** The workflow name used when none is given. */
export const DEFAULT_LOOP_WORKFLOW_NAME = "loopchart.run";
/** The DBOS stream key the events of a run are written under. */
export const EVENTS_STREAM_KEY = "loopchart.events";
/** Prefix of the DBOS message topic a call awaiting approval waits on; the tool call id follows. */
export const APPROVAL_TOPIC_PREFIX = "loopchart.approval.";
/** How long a call waits for its approval before it is rejected (DBOS `recv` timeout): 30 days. */
export const APPROVAL_WAIT_SECONDS = 30 * 24 * 60 * 60;
