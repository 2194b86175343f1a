/**
 * loopchart — the agent tool-call loop as an explicit XState v5 statechart.
 * Drop-in for pi-agent-core's `agentLoop`: same arguments, events and messages.
 */
export {
  agentLoop,
  agentLoopContinue,
  createAgentLoopActor,
  provideRunActors,
  runAgentLoop,
  runAgentLoopContinue,
  type AgentLoopActor,
  type CreateAgentLoopActorOptions,
} from "./agent-loop.js";
export { EventStream, type EventStreamOptions } from "./event-stream.js";
export { LoopInputError } from "./errors/loop-input-error.js";
export {
  InvalidToolDefinitionError,
  StreamAlreadyIteratedError,
  ToolArgumentsError,
  type ToolArgumentIssue,
} from "./errors/index.js";
export { assertToolParameters, toJsonSchema, validateToolArguments } from "./validation.js";
export { defineTool } from "./define-tool.js";
export { BLOCKED_MESSAGE } from "./actors/tool-call-actors.js";
export {
  ABORTED_MESSAGE,
  LENGTH_TRUNCATION_MESSAGE,
  agentLoopMachine,
  toolCallMachine,
  type AgentLoopContext,
  type AgentLoopHooks,
  type AgentLoopInput,
  type AgentLoopOutput,
  type ToolCallContext,
} from "../machines/index.js";
export {
  checkAgentLoop,
  formatReport,
  formatViolation,
  INVARIANTS,
  summaryLine,
  type CheckAgentLoopOptions,
  type InvariantId,
  type ModelCheckReport,
  type ModelCheckViolation,
} from "./model-check/index.js";
export { toMermaid } from "./inspection/to-mermaid.js";
export type * from "./types.js";
