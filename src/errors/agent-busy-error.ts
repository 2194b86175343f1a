/**
 * Thrown (as a rejected promise from `prompt`/`continue`, synchronously from
 * `reset`) when an {@link import("../agent.js").Agent} is asked to start or reset
 * while a run is active. The message says what to do instead: queue the message
 * with `steer()`/`followUp()`, or `await agent.waitForIdle()` first.
 */
export class AgentBusyError extends Error {
  override readonly name = "AgentBusyError";
  /** What was refused. */
  readonly operation: "prompt" | "continue" | "reset" | "compact";

  constructor(operation: "prompt" | "continue" | "reset" | "compact", message: string) {
    super(message);
    this.operation = operation;
  }
}
