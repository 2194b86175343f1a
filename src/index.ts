/**
 * loopchart — the agent tool-call loop as an explicit XState v5 statechart.
 * Drop-in for pi-agent-core's `agentLoop`: same arguments, events and messages.
 *
 * This entry's declarations name no XState type: the actor, the machines and everything
 * else typed with XState's types is exported from `loopchart/xstate` (the machines' parts
 * from `loopchart/machines`, the stepped run from `loopchart/stepped`), so a user who type-checks with `skipLibCheck: false`
 * loads XState's declarations only if they import those.
 */
export { agentLoop, agentLoopContinue, runAgentLoop, runAgentLoopContinue } from "./agent-loop.js";
export { Agent, type ApproveOptions } from "./agent.js";
export type { AgentRunRequest } from "./agent/agent-run-request.js";
export { defaultConvertToLlm } from "./agent/agent-input.js";
export type { AgentListener, AgentOptions, AgentThinkingBudgets, AgentTransport } from "./agent/agent-options.js";
export { UNKNOWN_MODEL, type AgentInitialState, type AgentState, type AgentTools } from "./agent/agent-state.js";
export { DEFAULT_QUEUE_MODE, type QueueMode } from "./agent/message-queue.js";
export { forkSession, type ForkedSession, type ForkOptions } from "./agent/fork-session.js";
export { EventStream, type EventStreamOptions } from "./event-stream.js";
export { LoopInputError } from "./errors/loop-input-error.js";
export {
  AgentBusyError,
  ApprovalError,
  CheckpointNotFoundError,
  InvalidToolDefinitionError,
  SessionExistsError,
  SessionBusyError,
  SessionFileError,
  SessionLeaseLostError,
  SessionNotFoundError,
  SessionVersionError,
  StreamAlreadyIteratedError,
  ToolArgumentsError,
  type ToolArgumentIssue,
} from "./errors/index.js";
export * from "./sessions/index.js";
export { INTERRUPTED_BY_RESTART_MESSAGE } from "./dbos/replay-policy.js";
export { assertToolParameters, TOOL_NAME_PATTERN, toJsonSchema, validateToolArguments } from "./validation.js";
export { defineTool } from "./define-tool.js";
export {
  RUN_TOOL_CALL_APPROVAL_MESSAGE,
  runToolCall,
  type AgentToolCallOutcome,
  type RunToolCallOptions,
  type ToolCallHooks,
  type ToolUpdateSink,
} from "./run-tool-call.js";
export { RetryableToolError, isRetryableError } from "./errors/index.js";
export {
  DEFAULT_INVALID_CALL_LIMIT,
  DEFAULT_WRAP_UP_PROMPT,
  WRAP_UP_REFUSAL_MESSAGE,
  capsFor,
  releasable,
  type CallCaps,
  type ToolCallPolicy,
  type ToolPolicies,
} from "../machines/loop-policies.js";
export { ABORTED_MESSAGE, BLOCKED_MESSAGE, LENGTH_TRUNCATION_MESSAGE, REJECTED_MESSAGE } from "../machines/result-texts.js";
export { ABORT_GRACE_MS } from "../machines/abort-grace.js";
export type {
  InspectedActorRef,
  InspectedEventObject,
  InspectedSnapshot,
  InspectionCallback,
  InspectionObserver,
  LoopInspectionEvent,
  LoopInspector,
} from "./inspection/inspection-event.js";
export {
  MAX_INSPECTED_STRING_LENGTH,
  sanitizeInspectionEvent,
  sanitizeValue,
  type SanitizedInspectionEvent,
} from "./inspection/sanitize.js";
export { readableInspectionEvent, readableInspector, readableSnapshot, type ReadableSnapshot } from "./inspection/readable-inspection.js";
export { rawInspectionEvent } from "./inspection/raw-inspection-event.js";
export * from "./compaction/index.js";
export type * from "./types.js";
export { TRACE_FLUSH_CHARS, recordTrace, type RecordTraceOptions, type TraceRecorder } from "./inspection/record-trace.js";
export { loadTrace, parseTrace, type Trace } from "./cli/trace-reader.js";
export { TraceFormatError } from "./cli/trace-format-error.js";
export { TRACE_FORMAT_VERSION, type TraceEnd, type TraceEventLine, type TraceHeader, type TraceInspectionLine } from "./cli/trace-format.js";
export { TELEMETRY_TRACER_NAME, createTelemetrySink, telemetryFor } from "./inspection/telemetry.js";
export type { TelemetryApi, TelemetryAttributes, TelemetryContext, TelemetrySpan, TelemetryTracer } from "./inspection/telemetry-types.js";
