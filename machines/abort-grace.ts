/**
 * The default abort grace period, apart from the chart so that loopchart's main entry can
 * export it without its declarations naming XState's types.
 */

/**
 * How long an aborted run waits for the work it awaits — a tool, a hook, the model
 * stream — to honour the signal, before it stops waiting: running calls get an
 * "Operation aborted" result, a stalled stream an aborted response, and the run
 * ends `aborted`. A late settle of abandoned work is ignored.
 */
export const ABORT_GRACE_MS = 2000;
