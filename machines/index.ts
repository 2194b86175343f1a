export {
  ABORTED_MESSAGE,
  ABORT_GRACE_MS,
  LENGTH_TRUNCATION_MESSAGE,
  agentLoopMachine,
  type AgentLoopContext,
  type AgentLoopHooks,
  type AgentLoopInput,
  type AgentLoopOutput,
  type ToolBatch,
} from "./agent-loop.machine.js";
export { CALL_GROUP_SIZE, callGroupMachine, type CallGroupInput } from "./call-group.machine.js";
export {
  BLOCKED_MESSAGE,
  errorResult,
  errorText,
  toolCallMachine,
  type ExecuteToolInput,
  type FinalizeToolCallInput,
  type ToolCallContext,
} from "./tool-call.machine.js";
export type {
  AgentLoopEvent,
  LoopToToolCallEvent,
  ModelStreamEvent,
  NextTurnUpdate,
  PrepareRequestInput,
  RequestModelInput,
  RunControlEvent,
  SettledToolCall,
  LoopToCallGroupEvent,
  ToolCallInput,
  ToolCallToLoopEvent,
  TurnDecision,
  TurnHookInput,
} from "./events.js";
