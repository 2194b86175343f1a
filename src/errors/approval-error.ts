/**
 * Thrown by `agent.approve` / `agent.reject` when the decision cannot be applied:
 * no run is active, the id is not a call of the current tool batch, the call was
 * already decided, or it is not waiting for approval. Nothing changed.
 */
export class ApprovalError extends Error {
  override readonly name = "ApprovalError";
  /** The tool call the decision named. */
  readonly toolCallId: string;

  constructor(toolCallId: string, message: string) {
    super(message);
    this.toolCallId = toolCallId;
  }
}
