import type { AgentEvent } from "../types.js";

/** Turns a run's events into output. Used live and by `loopchart replay`. */
export interface EventRenderer {
  /** Renders one event; `t` is when it happened (ms since the epoch). */
  render(event: AgentEvent, t: number): void;
  /** Prints a message from the CLI itself (e.g. "aborting…"). */
  notice(text: string): void;
  /**
   * The human answered the approval question of `toolCallId` at `at` (ms since the epoch):
   * its running time counts from then. Absent where nothing is drawn live.
   */
  approvalAnswered?(toolCallId: string, at: number): void;
  /** Stops timers and clears any status line. Idempotent. */
  close(): void;
}
