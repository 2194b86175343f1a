export {
  ABORTED_MESSAGE,
  ABORT_GRACE_MS,
  LENGTH_TRUNCATION_MESSAGE,
  agentLoopMachine,
  type AgentLoopContext,
  type AgentLoopHooks,
  type AgentLoopInput,
  type AgentLoopOutput,
} from "./agent-loop.machine.js";
export { agentLoopSetup, type InvokeErrorEvent } from "./agent-loop.setup.js";
export { requestingState } from "./requesting.state.js";
export { betweenTurnsState } from "./between-turns.state.js";
export { dispatchingState } from "./dispatching.state.js";
export { ALONE_CALL_ID, runsAlone } from "./alone-call.js";
export { SINGLE_CALL_ID, singleCallMachine, type SingleCallContext } from "./single-call.machine.js";
export {
  SLICE_SIZE,
  batchModeOf,
  linkSlices,
  toolBatchMachine,
  type BatchMode,
  type ToolBatchContext,
  type ToolBatchInput,
  type ToolBatchOutput,
} from "./tool-batch.machine.js";
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
  BatchToSliceEvent,
  BatchToToolCallEvent,
  ModelStreamEvent,
  NextTurnUpdate,
  PrepareRequestInput,
  RequestModelInput,
  RunControlEvent,
  SettledToolCall,
  SliceToBatchEvent,
  ToolCallInput,
  ToolCallToBatchEvent,
  TurnDecision,
  TurnHookInput,
} from "./events.js";
