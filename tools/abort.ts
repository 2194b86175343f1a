/** The message every tool throws when its abort signal fires. */
export const OPERATION_ABORTED = "Operation aborted";

/** Throws `Error("Operation aborted")` when `signal` has fired; otherwise does nothing. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new Error(OPERATION_ABORTED);
}
