/**
 * Thrown synchronously by `agentLoop`, `agentLoopContinue` and
 * `createAgentLoopActor` when their input is unusable (a broken precondition).
 * The message names what was expected and how to fix it.
 */
export class LoopInputError extends Error {
  override readonly name = "LoopInputError";
}
