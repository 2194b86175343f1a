/**
 * A worker process: DBOS launched on the system database, the loop workflow registered, one
 * queue served with a per-worker and an optional global concurrency limit.
 */
import { DBOS } from "@dbos-inc/dbos-sdk";
import { DBOS_APP_NAME, DEFAULT_DBOS_QUEUE, DEFAULT_WORKER_CONCURRENCY, QUEUE_POLLING_INTERVAL_MS } from "./constants.js";
import { registerLoopWorkflow, type DbosLoopOptions } from "./loop-workflow.js";

/** Options of {@link startWorker}. */
export interface DbosWorkerOptions extends Pick<DbosLoopOptions, "createRun" | "safeRetry" | "streamEvents"> {
  /** `postgres://user:pass@host:5432/db`, the DBOS system database. */
  systemDatabaseUrl: string;
  /** Default {@link DEFAULT_DBOS_QUEUE}. */
  queueName?: string;
  /**
   * Runs each worker of the queue takes at a time; default {@link DEFAULT_WORKER_CONCURRENCY}.
   * DBOS stores the queue's limits in Postgres: the last worker to start (of the latest
   * application version) sets them for every worker of the queue.
   */
  workerConcurrency?: number;
  /** Runs the queue takes at a time across all its workers. Default: no global limit. */
  globalConcurrency?: number;
  /**
   * This worker's id. DBOS recovers the pending runs of this id at launch, so a restarted
   * worker with the same id finishes what its predecessor left. Default: DBOS's (`local`).
   */
  executorID?: string;
  /** Runs are dequeued only by workers of the version they were enqueued for. Default {@link DBOS_APP_NAME}. */
  applicationVersion?: string;
  /** DBOS's log level; default "warn". */
  logLevel?: string;
}

/** A running worker. */
export interface DbosWorker {
  readonly queueName: string;
  readonly workerConcurrency: number;
  readonly globalConcurrency: number | undefined;
  /** Stops taking runs and shuts DBOS down; runs in flight stay PENDING for recovery. */
  shutdown(): Promise<void>;
}

function checkLimit(name: string, value: number | undefined): void {
  if (value !== undefined && (!Number.isInteger(value) || value < 1)) throw new RangeError(`${name} must be a whole number of 1 or more, got ${value}.`);
}

/**
 * Launches DBOS in this process as a worker of `queueName`. One per process (DBOS is a
 * process-wide singleton). Throws a `RangeError` for a bad limit (before connecting), and
 * what `DBOS.launch` throws when the database cannot be reached.
 */
export async function startWorker(options: DbosWorkerOptions): Promise<DbosWorker> {
  checkLimit("workerConcurrency", options.workerConcurrency);
  checkLimit("globalConcurrency", options.globalConcurrency);
  const queueName = options.queueName ?? DEFAULT_DBOS_QUEUE;
  const workerConcurrency = options.workerConcurrency ?? DEFAULT_WORKER_CONCURRENCY;
  if (options.globalConcurrency !== undefined && options.globalConcurrency < workerConcurrency) {
    // DBOS refuses a worker limit above the global one; say which flag to change.
    throw new RangeError(`workerConcurrency (${workerConcurrency}) must not exceed globalConcurrency (${options.globalConcurrency}).`);
  }
  DBOS.setConfig({
    name: DBOS_APP_NAME,
    systemDatabaseUrl: options.systemDatabaseUrl,
    ...(options.executorID === undefined ? {} : { executorID: options.executorID }),
    applicationVersion: options.applicationVersion ?? DBOS_APP_NAME,
    listenQueues: [queueName],
    logLevel: options.logLevel ?? "warn",
  });
  registerLoopWorkflow({
    createRun: options.createRun,
    ...(options.safeRetry === undefined ? {} : { safeRetry: options.safeRetry }),
    ...(options.streamEvents === undefined ? {} : { streamEvents: options.streamEvents }),
  });
  await DBOS.launch();
  await DBOS.registerQueue(queueName, {
    workerConcurrency,
    ...(options.globalConcurrency === undefined ? {} : { globalConcurrency: options.globalConcurrency }),
    minPollingIntervalMs: QUEUE_POLLING_INTERVAL_MS,
  });
  return { queueName, workerConcurrency, globalConcurrency: options.globalConcurrency, shutdown: () => DBOS.shutdown() };
}
