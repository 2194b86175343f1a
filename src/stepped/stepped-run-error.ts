/** What a stepped run could not do, as a discriminant. */
export type SteppedRunErrorReason =
  /** `step` or `snapshot` after the run ended. */
  | "finished"
  /** `step` while an earlier `step` (or `abort`) is still under way: await it first. */
  | "busy"
  /** `snapshot` before the run parked: await `pending()` (or `step()`) first. */
  | "notParked"
  /** `step` found no pending effect matching its choice. */
  | "noMatch"
  /** `step` when only decisions are pending: answer with `approve` / `reject`. */
  | "awaitingDecision";

/**
 * Thrown by a stepped run's `step`, `snapshot`, `approve` / `reject` and
 * `runToCompletion` when the run is not where the call needs it; the message names
 * what is pending. Nothing changed.
 */
export class SteppedRunError extends Error {
  override readonly name = "SteppedRunError";
  readonly reason: SteppedRunErrorReason;

  constructor(reason: SteppedRunErrorReason, message: string) {
    super(message);
    this.reason = reason;
  }
}
