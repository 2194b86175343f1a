/**
 * Thrown by `Agent.fork` (and `loopchart fork`) when the session id to fork into is
 * already taken in the store: a fork never writes over a session. Nothing is written.
 */
export class SessionExistsError extends Error {
  override readonly name = "SessionExistsError";
  readonly sessionId: string;
  /** Where the store is (a directory or a SQLite file). */
  readonly location: string;

  constructor(sessionId: string, location: string) {
    super(`Session "${sessionId}" already exists in ${location}; a fork goes into a new session (choose another id).`);
    this.sessionId = sessionId;
    this.location = location;
  }
}
