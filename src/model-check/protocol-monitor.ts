/**
 * The invariant monitor: a small state machine that watches one path — the world
 * events sent to the loop, the events the loop emits and the events it sends to
 * its tool calls — and reports the first step that breaks I1, I2, I4, I5, I6, I7 or I8.
 * Its state is plain data and part of the explored state, so every path through
 * the abstract state space is monitored, not just one per state.
 */
import type { AgentEvent, ExitReason, StopReason, ToolResultMessage } from "../types.js";
import type { InvariantId } from "./types.js";

/** A violation found on the step that produced a state. */
export interface StepViolation {
  invariant: InvariantId;
  message: string;
}

/** The response of the current turn, as the world sent it. */
export interface MonitoredResponse {
  stopReason: StopReason;
  /** Tool call ids in source order. */
  calls: string[];
  /** The request declared no tools (the wrap-up request). */
  withoutTools?: boolean;
}

/** What the monitor remembers of a path. JSON data. */
export interface ProtocolMonitor {
  started: boolean;
  ended: boolean;
  turnOpen: boolean;
  messageOpen: boolean;
  /** `turn_start` events so far. */
  turns: number;
  maxTurns: number | null;
  /** The world sent `run.abort`. */
  aborted: boolean;
  response: MonitoredResponse | null;
  execStarted: string[];
  execEnded: string[];
  /** Ids whose `tool_execution_end` result asked to terminate. */
  terminates: string[];
  /** Ids of tool results appended (`message_end`) this turn, in order. */
  appended: string[];
  /** Steering or follow-up messages arrived since the last `turn_end`. */
  pendingDelivered: boolean;
  /** The last finished batch was non-empty, not refused, and every result terminated. */
  lastBatchTerminates: boolean;
  stopRequested: boolean;
  /** finishTurn asked for one more request this turn (pi 1.x): the run may go on after a terminating batch. */
  continueRequested: boolean;
  hookFailed: boolean;
  /** The run's limits: a wrap-up request is asked for; a budget is set. */
  limits: MonitoredLimits;
  /** Requests that declared no tools so far. */
  requestsWithoutTools: number;
  /** A request came after one without tools. */
  requestAfterWrapUp: boolean;
  /** A call was rejected as invalid on this path. */
  invalidCall: boolean;
  /** Calls told to execute (or spawned to go straight on) whose `tool_execution_end` has not come, as [id, tool name]. */
  executing: [string, string][];
  /** This turn's request was compacted and retried after an overflow (a second one ends the run `error`). */
  overflowRetried: boolean;
  /** `compaction_start` without its `compaction_end` yet. */
  compacting: boolean;
}

/** What the monitor knows of the run's configuration. */
export interface MonitoredLimits {
  wrapUp: boolean;
  budget: boolean;
  /** Tools' `concurrency`, by tool name, when some tool has one. */
  concurrency?: Record<string, number>;
  /** `maxParallelCalls`, when set. */
  maxParallelCalls?: number;
}

/** What a world event tells the monitor about the path. */
export interface WorldFact {
  abort?: true;
  response?: MonitoredResponse;
  pendingDelivered?: true;
  stopRequested?: true;
  continueRequested?: true;
  hookFailed?: true;
  invalidCall?: true;
}

/** A fresh monitor for a run with `maxTurns` (null: unbounded). */
export function createMonitor(maxTurns: number | null, limits: MonitoredLimits = { wrapUp: false, budget: false }): ProtocolMonitor {
  return {
    started: false,
    ended: false,
    turnOpen: false,
    messageOpen: false,
    turns: 0,
    maxTurns,
    aborted: false,
    response: null,
    execStarted: [],
    execEnded: [],
    terminates: [],
    appended: [],
    pendingDelivered: false,
    lastBatchTerminates: false,
    stopRequested: false,
    continueRequested: false,
    hookFailed: false,
    limits,
    requestsWithoutTools: 0,
    requestAfterWrapUp: false,
    invalidCall: false,
    executing: [],
    overflowRetried: false,
    compacting: false,
  };
}

/** Records a world event's facts. Mutates `monitor` (a copy owned by the step). */
export function observeWorld(monitor: ProtocolMonitor, fact: WorldFact | undefined): void {
  if (!fact) return;
  if (fact.abort) monitor.aborted = true;
  if (fact.response) {
    if (monitor.requestsWithoutTools > 0) monitor.requestAfterWrapUp = true;
    if (fact.response.withoutTools) monitor.requestsWithoutTools += 1;
    monitor.response = fact.response;
  }
  if (fact.invalidCall) monitor.invalidCall = true;
  if (fact.pendingDelivered) monitor.pendingDelivered = true;
  if (fact.stopRequested) monitor.stopRequested = true;
  if (fact.continueRequested) monitor.continueRequested = true;
  if (fact.hookFailed) monitor.hookFailed = true;
}

const failedStop = (response: MonitoredResponse | null) =>
  response !== null && (response.stopReason === "error" || response.stopReason === "aborted");

/** Checks one emitted event; returns the violations it causes. Mutates `monitor`. */
export function observeEmitted(monitor: ProtocolMonitor, event: AgentEvent): StepViolation[] {
  const found: StepViolation[] = [];
  const fail = (invariant: InvariantId, message: string) => found.push({ invariant, message });
  if (monitor.ended) fail("I4", `${event.type} emitted after agent_end`);
  if (!monitor.started && event.type !== "agent_start") fail("I4", `first event is ${event.type}, not agent_start`);
  switch (event.type) {
    case "agent_start":
      if (monitor.started) fail("I4", "agent_start emitted twice");
      monitor.started = true;
      break;
    case "turn_start":
      if (monitor.turnOpen) fail("I4", "turn_start while the previous turn has not ended");
      if (monitor.aborted) fail("I6", "a new turn starts after run.abort");
      // With wrapUp, one turn past the cap is the wrap-up request's.
      if (monitor.maxTurns !== null && monitor.turns + 1 > monitor.maxTurns + (monitor.limits.wrapUp ? 1 : 0)) {
        fail("I6", `turn ${monitor.turns + 1} starts although maxTurns is ${monitor.maxTurns}`);
      }
      if (monitor.turns > 0 && monitor.lastBatchTerminates && !monitor.pendingDelivered && !monitor.continueRequested) {
        fail("I5", "the run continues after a batch whose every result terminates, with no steering or follow-up message nor finishTurn's continue");
      }
      monitor.continueRequested = false;
      monitor.overflowRetried = false;
      monitor.turnOpen = true;
      monitor.turns += 1;
      // The new turn's response is not known yet (a hook before the request may fail the turn).
      monitor.response = null;
      break;
    case "message_start":
      if (monitor.messageOpen) fail("I4", "message_start while another message is open");
      monitor.messageOpen = true;
      break;
    case "message_update":
      if (!monitor.messageOpen) fail("I4", "message_update outside message_start/message_end");
      break;
    case "message_end":
      if (!monitor.messageOpen) fail("I4", "message_end without message_start");
      monitor.messageOpen = false;
      // A second overflow after compacting ends the turn with the response turned into a failure without its calls.
      if (monitor.overflowRetried && (event.message as { role?: string; stopReason?: string }).role === "assistant" && (event.message as { stopReason?: string }).stopReason === "error") {
        monitor.response = { stopReason: "error", calls: [] };
      }
      if ((event.message as { role?: string }).role === "toolResult") {
        found.push(...checkAppendedResult(monitor, (event.message as ToolResultMessage).toolCallId));
      }
      break;
    case "tool_execution_start":
      if (monitor.execStarted.includes(event.toolCallId)) fail("I4", `tool_execution_start twice for ${event.toolCallId}`);
      monitor.execStarted = [...monitor.execStarted, event.toolCallId];
      break;
    case "tool_execution_update":
      if (!monitor.execStarted.includes(event.toolCallId) || monitor.execEnded.includes(event.toolCallId)) {
        fail("I4", `tool_execution_update for ${event.toolCallId} outside its start/end`);
      }
      break;
    case "approval_requested":
      if (!monitor.execStarted.includes(event.toolCallId) || monitor.execEnded.includes(event.toolCallId)) {
        fail("I4", `approval_requested for ${event.toolCallId} outside its tool_execution_start/end`);
      }
      break;
    case "tool_execution_end":
      if (!monitor.execStarted.includes(event.toolCallId)) fail("I4", `tool_execution_end before tool_execution_start for ${event.toolCallId}`);
      if (monitor.execEnded.includes(event.toolCallId)) fail("I4", `tool_execution_end twice for ${event.toolCallId}`);
      monitor.execEnded = [...monitor.execEnded, event.toolCallId];
      if (monitor.executing.some(([id]) => id === event.toolCallId)) monitor.executing = monitor.executing.filter(([id]) => id !== event.toolCallId);
      if (event.result?.terminate === true) monitor.terminates = [...monitor.terminates, event.toolCallId];
      break;
    case "compaction_start":
      if (!monitor.turnOpen) fail("I4", "compaction_start outside a turn");
      if (monitor.compacting) fail("I4", "compaction_start while a compaction is under way");
      monitor.compacting = true;
      if (event.reason === "overflow" || event.reason === "length") {
        if (monitor.overflowRetried) fail("I6", "a second compaction after an overflow in one turn (the retry is once)");
        monitor.overflowRetried = true;
        // The overflowing response is dropped: a streamed one's message ends here, and its calls need no results.
        monitor.messageOpen = false;
        monitor.response = null;
      } else if (monitor.messageOpen) fail("I4", "compaction_start while a message is open");
      break;
    case "compaction_end":
      if (!monitor.compacting) fail("I4", "compaction_end without compaction_start");
      monitor.compacting = false;
      break;
    case "turn_end":
      found.push(...endTurn(monitor, event.toolResults.map((result) => result.toolCallId)));
      break;
    case "agent_end":
      if (monitor.ended) fail("I4", "agent_end emitted twice");
      if (monitor.turnOpen) fail("I4", "agent_end while a turn is open (turn_start without turn_end)");
      if (monitor.messageOpen) fail("I4", "agent_end while a message is open");
      monitor.ended = true;
      found.push(...checkExitReason(monitor, event.exitReason));
      break;
  }
  return found;
}

function checkAppendedResult(monitor: ProtocolMonitor, id: string): StepViolation[] {
  const calls = monitor.response?.calls ?? [];
  const expected = calls[monitor.appended.length];
  const found: StepViolation[] = [];
  if (monitor.appended.includes(id)) found.push({ invariant: "I1", message: `a second result is appended for ${id}` });
  else if (!calls.includes(id)) found.push({ invariant: "I1", message: `a result is appended for ${id}, which is not a call of this response` });
  else if (id !== expected) {
    found.push({ invariant: "I1", message: `results out of source order: ${id} appended where ${expected ?? "nothing"} was due` });
  }
  monitor.appended = [...monitor.appended, id];
  return found;
}

function endTurn(monitor: ProtocolMonitor, resultIds: string[]): StepViolation[] {
  const found: StepViolation[] = [];
  if (!monitor.turnOpen) found.push({ invariant: "I4", message: "turn_end without turn_start" });
  if (monitor.messageOpen) found.push({ invariant: "I4", message: "turn_end while a message is open" });
  const response = monitor.response;
  const calls = response && !failedStop(response) ? response.calls : [];
  const missing = calls.filter((id) => !resultIds.includes(id));
  if (missing.length > 0) found.push({ invariant: "I1", message: `turn ends without a result for ${missing.join(", ")}` });
  else if (resultIds.join(",") !== calls.join(",")) {
    found.push({ invariant: "I1", message: `turn ends with results [${resultIds.join(", ")}] for calls [${calls.join(", ")}]` });
  }
  monitor.turnOpen = false;
  monitor.lastBatchTerminates =
    calls.length > 0 && response?.stopReason !== "length" && calls.every((id) => monitor.terminates.includes(id));
  monitor.pendingDelivered = false;
  monitor.execStarted = [];
  monitor.execEnded = [];
  monitor.terminates = [];
  monitor.appended = [];
  monitor.executing = [];
  return found;
}

function checkExitReason(monitor: ProtocolMonitor, reason: ExitReason | undefined): StepViolation[] {
  const found: StepViolation[] = [];
  const fail = (message: string) => found.push({ invariant: "I6", message });
  const response = monitor.response;
  if (reason === undefined) {
    fail("agent_end carries no exit reason");
    return found;
  }
  // An abort wins: whatever the run was doing when run.abort arrived, it ends aborted.
  if (monitor.aborted) {
    if (reason !== "aborted") fail(`run.abort happened, but the exit reason is ${reason}`);
    return found;
  }
  if (reason === "aborted" && response?.stopReason !== "aborted") {
    fail("exit reason aborted, but no abort happened and the response was not aborted");
  }
  if (reason === "error" && !monitor.hookFailed && response?.stopReason !== "error") {
    fail("exit reason error, but neither the response nor a hook failed");
  }
  // A failed response's own exit reason wins over a hook that threw after it (finishTurn).
  if (monitor.hookFailed && reason !== "error" && !failedStop(response)) fail(`a hook threw, but the exit reason is ${reason}`);
  if (response?.stopReason === "error" && reason !== "error") fail(`the response failed, but the exit reason is ${reason}`);
  if (response?.stopReason === "aborted" && reason !== "aborted") fail(`the response was aborted, but the exit reason is ${reason}`);
  if ((reason === "stopped") !== monitor.stopRequested && !monitor.hookFailed && !failedStop(response)) {
    fail(monitor.stopRequested ? `a hook (shouldStopAfterTurn or finishTurn) said stop, but the exit reason is ${reason}` : "exit reason stopped, but no hook asked to stop");
  }
  if (reason === "maxTurns" && (monitor.maxTurns === null || monitor.turns < monitor.maxTurns)) {
    fail(`exit reason maxTurns after ${monitor.turns} turns (maxTurns ${monitor.maxTurns ?? "unset"})`);
  }
  if (reason === "budget" && !monitor.limits.budget) fail("exit reason budget, but the run has no budget");
  if (reason === "invalidCalls" && !monitor.invalidCall) fail("exit reason invalidCalls, but no call was rejected as invalid");
  found.push(...checkWrapUp(monitor, reason));
  if (reason === "completed" && (response?.calls.length ?? 0) > 0) fail("exit reason completed, but the last response asked for tools");
  if (reason === "terminated" && !monitor.lastBatchTerminates) {
    found.push({ invariant: "I5", message: "exit reason terminated, but not every result of the last batch terminates" });
  }
  return found;
}

/**
 * I7: a run that ends at `maxTurns` (or its budget) with `wrapUp` made exactly one
 * request without tools, and it was its last; no other run makes one.
 */
function checkWrapUp(monitor: ProtocolMonitor, reason: ExitReason): StepViolation[] {
  const found: StepViolation[] = [];
  const fail = (message: string) => found.push({ invariant: "I7", message });
  if (monitor.requestAfterWrapUp) fail("a request followed the request without tools");
  const wrapsUp = monitor.limits.wrapUp && (reason === "maxTurns" || reason === "budget");
  if (wrapsUp && monitor.requestsWithoutTools !== 1) {
    fail(`the run ended ${reason} with wrapUp after ${monitor.requestsWithoutTools} requests without tools, not 1`);
  }
  if (!monitor.limits.wrapUp && monitor.requestsWithoutTools > 0) fail("a request without tools, but the run has no wrapUp");
  return found;
}

/**
 * I8: a call that starts executing must fit its tool's `concurrency` and
 * `maxParallelCalls`, counting every call told to execute whose
 * `tool_execution_end` has not come (a released call awaiting approval holds its room).
 */
function checkConcurrency(monitor: ProtocolMonitor, callId: string, toolName: string): StepViolation[] {
  const { concurrency, maxParallelCalls } = monitor.limits;
  if (concurrency === undefined && maxParallelCalls === undefined) return [];
  monitor.executing = [...monitor.executing, [callId, toolName]];
  const found: StepViolation[] = [];
  const cap = concurrency !== undefined && Object.hasOwn(concurrency, toolName) ? concurrency[toolName] : undefined;
  const ofTool = monitor.executing.filter(([, name]) => name === toolName).length;
  if (cap !== undefined && ofTool > cap) found.push({ invariant: "I8", message: `${ofTool} calls of ${toolName} execute at once; its concurrency is ${cap}` });
  if (maxParallelCalls !== undefined && monitor.executing.length > maxParallelCalls) {
    found.push({ invariant: "I8", message: `${monitor.executing.length} calls execute at once; maxParallelCalls is ${maxParallelCalls}` });
  }
  return found;
}

/**
 * Notes an event a tool call sends to its batch: a call rejected in preparation
 * (unknown tool, invalid arguments) is a row of the invalid-call breaker, which may
 * end the run with exit reason `invalidCalls` (I6).
 */
export function observeSentToBatch(monitor: ProtocolMonitor, event: { type: string }): void {
  if (event.type === "tool.settled" && (event as { rejected?: unknown }).rejected !== undefined) observeWorld(monitor, { invalidCall: true });
}

/** Checks an event the batch sends to a tool call of tool `toolName` (needed for I8 only); returns the violations. */
export function observeSentToCall(monitor: ProtocolMonitor, callId: string, eventType: string, toolName = ""): StepViolation[] {
  // An approval lets a call run too (it executes once released).
  if (eventType !== "call.execute" && eventType !== "call.start" && eventType !== "call.approve" && eventType !== "call.preapprove") return [];
  const found: StepViolation[] = eventType === "call.execute" || eventType === "call.start" ? checkConcurrency(monitor, callId, toolName) : [];
  if (monitor.aborted) found.push({ invariant: "I2", message: `${callId} starts executing after run.abort` });
  if (monitor.response?.stopReason === "length") {
    found.push({ invariant: "I2", message: `${callId} of a length-truncated response starts executing` });
  }
  return found;
}
