export {
  ABORTED_MESSAGE,
  LENGTH_TRUNCATION_MESSAGE,
  agentLoopMachine,
  type AgentLoopContext,
  type AgentLoopHooks,
  type AgentLoopInput,
  type AgentLoopOutput,
  type ToolBatch,
} from "./agent-loop.machine.js";
export {
  errorResult,
  errorText,
  toolCallMachine,
  type ExecuteToolInput,
  type FinalizeToolCallInput,
  type ToolCallContext,
} from "./tool-call.machine.js";
export type {
  AgentLoopEvent,
  ExecuteToolEvent,
  LoopToToolCallEvent,
  ModelStreamEvent,
  NextTurnUpdate,
  RequestModelInput,
  RunControlEvent,
  SettledToolCall,
  ToolCallInput,
  ToolCallPreparation,
  ToolCallToLoopEvent,
  TurnHookInput,
} from "./events.js";
