/**
 * Starting a run on a queue from any process (no DBOS launch needed: a `DBOSClient`).
 */
import type { DBOSClient, WorkflowHandle } from "@dbos-inc/dbos-sdk";
import { DEFAULT_DBOS_QUEUE, DEFAULT_LOOP_WORKFLOW_NAME } from "./constants.js";
import type { DbosRunInput, DbosRunOutput } from "./loop-workflow.js";

/** Options of {@link enqueueRun}. */
export interface EnqueueRunOptions {
  /** Default {@link DEFAULT_DBOS_QUEUE}. */
  queueName?: string;
  /** The run's id; default a random UUID. An id that exists already returns that run's handle. */
  workflowID?: string;
  /** The loop workflow's registered name; default {@link DEFAULT_LOOP_WORKFLOW_NAME}. */
  workflowName?: string;
}

/**
 * Puts a run of the loop workflow on a queue; a worker of that queue runs it. Resolves with
 * its handle (`workflowID`, `getStatus()`, `getResult()`). Throws what `DBOSClient.enqueue`
 * throws (e.g. the database cannot be reached).
 */
export async function enqueueRun(client: DBOSClient, input: DbosRunInput, options: EnqueueRunOptions = {}): Promise<WorkflowHandle<DbosRunOutput>> {
  return client.enqueue<(input: DbosRunInput) => Promise<DbosRunOutput>>(
    {
      queueName: options.queueName ?? DEFAULT_DBOS_QUEUE,
      workflowName: options.workflowName ?? DEFAULT_LOOP_WORKFLOW_NAME,
      ...(options.workflowID === undefined ? {} : { workflowID: options.workflowID }),
    },
    input,
  );
}
