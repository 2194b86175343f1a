import type { LeaseHolder } from "../sessions/session-lease.js";

/**
 * Thrown when a session's lease is held by another process that is alive (its pid
 * runs on this host, or its heartbeat is recent): only one process may run, resume
 * or answer a session at a time. Thrown before any work is done; nothing is written.
 * The CLI exits with code 7 (`EXIT_CODES.sessionBusy`).
 */
export class SessionBusyError extends Error {
  override readonly name = "SessionBusyError";
  readonly sessionId: string;
  /** Who holds the lease, as its lock file or lease row says (undefined while it is being written). */
  readonly holder: LeaseHolder | undefined;

  constructor(sessionId: string, holder: LeaseHolder | undefined, now: number = Date.now()) {
    const who =
      holder === undefined
        ? "another process (its lock is being written)"
        : `pid ${holder.pid} on ${holder.host} since ${holder.startedAt} (last heartbeat ${Math.max(0, Math.round((now - Date.parse(holder.heartbeatAt)) / 1000))} s ago)`;
    super(`Session "${sessionId}" is in use by ${who}; one process runs a session at a time. Wait for it to end, or stop it (SIGTERM saves it for resume).`);
    this.sessionId = sessionId;
    this.holder = holder;
  }
}
