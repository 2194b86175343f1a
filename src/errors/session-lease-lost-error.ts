/**
 * Thrown by a store write when the process no longer holds the session's lease (its
 * fencing token is not the current one): another process took the session over
 * after this one stopped heartbeating, so this write is refused and the new owner's
 * records stay as they are.
 */
export class SessionLeaseLostError extends Error {
  override readonly name = "SessionLeaseLostError";
  readonly sessionId: string;

  constructor(sessionId: string, detail: string) {
    super(`Session "${sessionId}": this process no longer holds the session's lease (${detail}); the write was refused.`);
    this.sessionId = sessionId;
  }
}
