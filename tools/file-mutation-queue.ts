/**
 * Serializes changes to one file: `edit` and `write` calls of one batch run in parallel,
 * but two of them on the same path run one after the other, each seeing the file the
 * previous one left.
 */
const queues = new Map<string, Promise<unknown>>();

/**
 * Runs `task` after every earlier task queued for `path` settled. Resolves or rejects
 * with the task's outcome; a failed task does not block the ones queued after it.
 */
export function withFileMutationQueue<T>(path: string, task: () => Promise<T>): Promise<T> {
  const previous = queues.get(path) ?? Promise.resolve();
  const run = previous.then(task, task);
  const settled = run.then(
    () => undefined,
    () => undefined,
  );
  queues.set(path, settled);
  void settled.then(() => {
    if (queues.get(path) === settled) queues.delete(path);
  });
  return run;
}
