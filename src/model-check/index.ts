export {
  checkAgentLoop,
  defaultModelCheckConfigurations,
  DEFAULT_MODEL_CHECK_MAX_CALLS,
  DEFAULT_MODEL_CHECK_STATE_LIMIT,
  DEFAULT_MODEL_CHECK_TURNS,
  type CheckAgentLoopOptions,
} from "./check-agent-loop.js";
export { INVARIANT_DESCRIPTIONS, formatReport, formatViolation, reportPasses, summaryLine } from "./format-report.js";
export { SERIAL_TOOL, type HookOutcome } from "./loop-world.js";
export { machineTransitions, type MachineTransition } from "./machine-transitions.js";
export {
  INVARIANTS,
  type ConfigurationReport,
  type CoverageReport,
  type InvariantId,
  type ModelCheckConfiguration,
  type ModelCheckReport,
  type ModelCheckViolation,
} from "./types.js";
export {
  DEFAULT_TRACE_MACHINES,
  formatTraceVerification,
  parseTraceLines,
  verifyTrace,
  verifyTraceLines,
  type TraceLine,
  type TraceStepFailure,
  type TraceVerification,
  type VerifyTraceOptions,
} from "./verify-trace.js";
export {
  DEFAULT_REACH_DEPTH,
  DEFAULT_REACH_STATE_LIMIT,
  canReach,
  explorePaths,
  type ExploredPath,
  type ExplorePathsOptions,
  type Reachability,
  type ReachableState,
  type ReachOptions,
  type ReachTarget,
} from "./can-reach.js";
