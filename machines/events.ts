/**
 * The internal event alphabet of the loop and tool-call machines, and the data
 * their actors exchange. Everything here is JSON-serializable data; the public
 * event protocol (`agent_start`, `tool_execution_end`, …) is `AgentEvent` in
 * `src/types.ts`.
 */
import type {
  AgentMessage,
  AgentToolResult,
  AssistantMessage,
  Model,
  ThinkingLevel,
  ToolCall,
  ToolResultMessage,
} from "../src/types.js";
import type { Transcript } from "./transcript.js";
import type { ToolCallPolicy, ToolPolicies } from "./loop-policies.js";

/** What a tool call ends with: exactly one of these per call. */
export interface SettledToolCall {
  result: AgentToolResult<unknown>;
  isError: boolean;
  /** Set when the call never got past preparation because of the model: what the invalid-call breaker counts. */
  rejected?: "unknownTool" | "invalidArguments";
  /** Set when the tool threw an error it marks retryable. */
  retryable?: true;
  /** Milliseconds the tool's `execute` took (monotonic clock, rounded); absent when the tool did not run. */
  durationMs?: number;
}

/** Input of one spawned tool-call actor. */
export interface ToolCallInput {
  toolCall: ToolCall;
  /** Position in the assistant message (source order). */
  index: number;
  /** When set, the call is refused without being prepared; the text is its error result. */
  refusal?: string;
  /** Which per-call hooks the run has (and whether some tool decides `needsApproval` with a function); their states are skipped otherwise. */
  hooks?: { beforeToolCall: boolean; afterToolCall: boolean; needsApproval?: boolean };
  /**
   * Whether the batch waits for `tool.prepared` before it goes on (sequential
   * batches, runs with `beforeToolCall`, batches started after an abort): the
   * call then waits in `prepared` for `call.execute` or `call.cancel`.
   */
  reportsPreparation?: boolean;
  /**
   * Set when no handshake is needed (a parallel batch without `beforeToolCall`):
   * the call prepares and goes straight on to execute; it reports only `tool.settled`.
   */
  proceeds?: boolean;
  /** Set when the run has `beforeToolCall` or `afterToolCall`: what those hooks are shown. */
  hookScope?: CallHookScope;
  /** The tool's timeout and retry policy, when it has one. */
  policy?: ToolCallPolicy;
  /** The run already approved this call's tool for good (`always`): a call that would ask for approval goes on. */
  preapproved?: boolean;
}

/**
 * What a call's hooks are shown besides the call: the assistant message that
 * made it and the run's context as the batch started (as pi's `currentContext`,
 * which gets the batch's results only after the batch).
 */
export interface CallHookScope {
  assistantMessage: AssistantMessage;
  systemPrompt: string;
  messages: Transcript;
}

/**
 * Events a tool-call actor sends its batch: `tool.prepared` only when the batch
 * needs the handshake (`reportsPreparation`), and exactly one `tool.settled` per
 * call. A slice of a large batch reports `tool.prepared` the same way (with the
 * source index of its first call) and settles by finishing, with its results as output.
 */
export type ToolCallToBatchEvent =
  | {
      type: "tool.prepared";
      toolCallId: string;
      index: number;
      /** A slice of a capped batch: the source indexes of its calls that wait prepared (queued), ascending. */
      queued?: number[];
    }
  | {
      type: "tool.settled";
      toolCallId: string;
      toolName: string;
      index: number;
      result: AgentToolResult<unknown>;
      isError: boolean;
      rejected?: SettledToolCall["rejected"];
      durationMs?: number;
    };

/**
 * What a slice of a capped batch tells its parent batch (passed up to the batch
 * of the response, which owns the caps) once it reported its calls queued (its
 * `tool.prepared` carries them): the call with source index `index` settled.
 */
export type SliceToBatchEvent = { type: "slice.callSettled"; index: number };

/**
 * What a capped batch tells the slice that holds the call with source index
 * `index` (passed down to the call): execute it (`slice.execute`), or cancel it
 * without starting it, after an abort (`slice.cancel`).
 */
export type BatchToSliceEvent = { type: "slice.execute"; index: number } | { type: "slice.cancel"; index: number };

/**
 * What a batch tells a prepared call (or slice) that waits for its go: execute
 * (`call.execute`) or give up (`call.cancel`, also sent to a running call when
 * the run stops waiting after an abort).
 */
export type BatchToToolCallEvent = { type: "call.execute" } | { type: "call.cancel"; reason: string } | CallApprovalEvent;

/**
 * What a call is told about approval: the user's decision for a call waiting in
 * `preparing.awaitingApproval` (`call.approve` / `call.reject`, from the loop), that its
 * tool was approved for good meanwhile (`call.preapprove`, any step), or that the
 * run was aborted (`call.abort`, from its batch: a call waiting for a decision
 * settles aborted; any other step ignores it and honours the run's signal itself).
 */
export type CallApprovalEvent =
  | { type: "call.approve" }
  | { type: "call.reject"; reason?: string }
  | { type: "call.preapprove" }
  | { type: "call.abort"; reason: string };

/**
 * The user's decision on a call waiting for approval, sent to the loop (any
 * batch structure: the loop finds the call by its system id `toolCall:<id>`).
 * `always` approves the call's tool for the rest of the run (recorded in the
 * loop's `approvedTools`, so it persists in the snapshot). A decision for a call
 * that is not waiting, or an unknown id, changes nothing and emits a `warning`
 * with reason `approval`.
 */
export type ApprovalDecisionEvent =
  | { type: "tool.approve"; toolCallId: string; always?: boolean }
  | { type: "tool.reject"; toolCallId: string; reason?: string };

/**
 * What the `requestModel` actor (invoked by `requesting`) sends back to the loop: the final message, and
 * whether it already emitted `message_start` for it. (Streaming updates go
 * straight to the run's event sink; they never change the chart's state.)
 */
export type ModelStreamEvent = { type: "model.done"; message: AssistantMessage; started: boolean };

/** Everything one model request needs. */
export interface RequestModelInput {
  systemPrompt: string;
  messages: Transcript;
  model: Model;
  thinkingLevel: ThinkingLevel;
  turn: number;
  /** The wrap-up request: declare no tools. */
  withoutTools?: true;
}

/** What `prepareNextTurn` (for the next turn) or `prepareRequest` (from this request on) may change. */
export interface NextTurnUpdate {
  systemPrompt?: string;
  /** Replaces the transcript (the hook returned a context). */
  messages?: AgentMessage[];
  /** Messages to append before the next request, with their `message_start`/`message_end` (pi 1.x `prepareNextTurn`'s `messages`). */
  append?: AgentMessage[];
  model?: Model;
  thinkingLevel?: ThinkingLevel;
  /** Names of tools that force sequential execution, when the tool list changed. */
  sequentialTools?: string[];
  /** Names of tools whose calls may wait for approval, when the tool list changed. */
  approvalTools?: string[];
  /** The tools' policies, when the tool list changed. */
  toolPolicies?: ToolPolicies;
}

/** A `finishTurn` decision (pi-agent-core 1.x): end the run, or make sure of one more request. */
export type TurnDecision = "end" | "continue";

/** Input of the `prepareRequest` actor: what the request about to be made would use. */
export interface PrepareRequestInput {
  systemPrompt: string;
  messages: Transcript;
  model: Model;
  thinkingLevel: ThinkingLevel;
}

/** Input of the hook actors that run between turns. */
export interface TurnHookInput {
  message: AssistantMessage;
  toolResults: ToolResultMessage[];
  newMessages: Transcript;
  messages: Transcript;
  systemPrompt: string;
  model: Model;
  thinkingLevel: ThinkingLevel;
}

/**
 * Events the outside world sends to the loop: `run.abort` (the signal fired), and
 * `run.abandon`, which the loop raises itself a grace period after an abort, to stop
 * waiting on work that ignored it.
 */
export type RunControlEvent = { type: "run.abort" } | { type: "run.abandon" };

/** Every event the loop machine accepts (the batch's end arrives as its invoke's done event). */
export type AgentLoopEvent = ModelStreamEvent | RunControlEvent | ApprovalDecisionEvent;

const CALL_SYSTEM_PREFIX = "toolCall:";

/** System id of the actor of the tool call with id `callId` (its tool call id, made unique within the batch: `uniqueCallIds`). */
export const callSystemId = (callId: string): string => `${CALL_SYSTEM_PREFIX}${callId}`;

/** The call id a call's system id `toolCall:<id>` names; undefined for anything else. */
export function callIdOfSystemId(systemId: unknown): string | undefined {
  return typeof systemId === "string" && systemId.startsWith(CALL_SYSTEM_PREFIX) ? systemId.slice(CALL_SYSTEM_PREFIX.length) : undefined;
}
