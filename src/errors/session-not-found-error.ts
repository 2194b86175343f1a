/** Thrown by `Agent.resume` (and the CLI's `resume`) when the store has no session of that id. */
export class SessionNotFoundError extends Error {
  override readonly name = "SessionNotFoundError";
  readonly sessionId: string;
  /** Where the store looked (a directory or a SQLite file). */
  readonly location: string;

  constructor(sessionId: string, location: string) {
    super(`No session "${sessionId}" in ${location}.`);
    this.sessionId = sessionId;
    this.location = location;
  }
}
