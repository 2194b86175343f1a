/**
 * Trace conformance: is a recorded run a path of the chart it claims to be? Every actor of
 * a trace whose machine is known (by the `machineId` of its `@xstate.actor` line) must
 * start in its initial configuration, and every recorded change of state value must be a
 * macrostep of the definition: the recorded event's transition from the previous value,
 * followed by any eventless steps, `onDone`s and undelayed raised events. Guards are not
 * re-evaluated (a trace does not carry the context they read), so a step passes when some
 * guard outcome allows it. A trace that ends with `agent_end` must leave its loop actor in
 * a final state.
 */
import { readFile } from "node:fs/promises";
import type { AnyStateMachine, StateValue } from "xstate";
import { agentLoopMachine, singleCallMachine, toolBatchMachine, toolCallMachine } from "../../machines/index.js";
import {
  configurationOf,
  initialConfiguration,
  macrostepTargets,
  raisedEventTypes,
  transitionsOn,
  valueKey,
  valueOf,
  type Configuration,
} from "./state-configuration.js";

/** One line of a trace, as parsed JSON, with its 1-based line number in the file (or its place in the list). */
export interface TraceLine {
  line: number;
  value: unknown;
}

/** The first step of a trace that is not a step of the chart. */
export interface TraceStepFailure {
  /** 1-based line of the file (or place in the record list) that holds the step. */
  line: number;
  actorId: string;
  machineId: string;
  /** The state value before the step (undefined for an actor's first snapshot). */
  from?: StateValue;
  event: string;
  to?: StateValue;
  /** What is wrong, in a sentence. */
  reason: string;
}

/** What {@link verifyTrace} found. */
export interface TraceVerification {
  /** True when every checked step is a step of the chart. */
  conforms: boolean;
  /** Actors whose machine was known and checked. */
  actors: number;
  /** Changes of state value checked (first snapshots included). */
  steps: number;
  /** Machine ids seen in the trace that no given machine has: their actors were not checked. */
  unknownMachines: string[];
  failure?: TraceStepFailure;
}

/** The machines a trace is checked against by default: the shipped loop, batch, call and single-call charts. */
export const DEFAULT_TRACE_MACHINES: readonly AnyStateMachine[] = [agentLoopMachine, toolBatchMachine, toolCallMachine, singleCallMachine];

/** Options of {@link verifyTrace}. */
export interface VerifyTraceOptions {
  /**
   * The machine definitions to check against, matched by id with each actor's `machineId`
   * (a machine changed with `provide` keeps its id). Default {@link DEFAULT_TRACE_MACHINES}.
   * e.g. `{ machines: [myLoop, toolBatchMachine, toolCallMachine] }`
   */
  machines?: readonly AnyStateMachine[];
}

interface ActorTrack {
  actorId: string;
  machine: AnyStateMachine;
  raised: ReadonlySet<string>;
  configuration?: Configuration;
  value?: StateValue;
  status?: string;
  /** Invoked actors whose done or error event has not arrived yet. */
  invoked: Set<string>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Splits a JSONL trace into parsed lines, keeping line numbers. A final line without a
 * newline (a cut-off write) is dropped; a line that is not JSON throws a `SyntaxError`
 * naming its line.
 */
export function parseTraceLines(text: string): TraceLine[] {
  const lines = text.split("\n");
  lines.pop(); // "" after the last newline, or a cut-off line
  const parsed: TraceLine[] = [];
  lines.forEach((raw, index) => {
    if (raw.trim() === "") return;
    try {
      parsed.push({ line: index + 1, value: JSON.parse(raw) as unknown });
    } catch {
      throw new SyntaxError(`line ${index + 1}: not JSON`);
    }
  });
  return parsed;
}

function describeValue(value: StateValue | undefined): string {
  return value === undefined ? "(none)" : typeof value === "string" ? value : JSON.stringify(value);
}

/**
 * Checks a recorded trace against the chart. `trace` is a trace file's path or its lines
 * (parsed JSON values, in file order; line numbers are then places in the list). Never
 * throws for a trace that does not conform: the first bad step is in `failure`. Throws for
 * a file that cannot be read or a line that is not JSON.
 */
export async function verifyTrace(trace: string | readonly unknown[], options: VerifyTraceOptions = {}): Promise<TraceVerification> {
  const lines = typeof trace === "string" ? parseTraceLines(await readFile(trace, "utf8")) : trace.map((value, index) => ({ line: index + 1, value }));
  return verifyTraceLines(lines, options);
}

/** {@link verifyTrace} over lines already parsed. */
export function verifyTraceLines(lines: readonly TraceLine[], options: VerifyTraceOptions = {}): TraceVerification {
  const machines = new Map((options.machines ?? DEFAULT_TRACE_MACHINES).map((machine) => [machine.id, machine]));
  const raisedByMachine = new Map<AnyStateMachine, ReadonlySet<string>>();
  const raisedOf = (machine: AnyStateMachine) => {
    let raised = raisedByMachine.get(machine);
    if (!raised) raisedByMachine.set(machine, (raised = raisedEventTypes(machine)));
    return raised;
  };
  const tracks = new Map<string, ActorTrack>();
  const unknown = new Set<string>();
  let steps = 0;
  let loopSession: string | undefined;
  let endedLine: number | undefined;
  const result = (failure?: TraceStepFailure): TraceVerification => ({
    conforms: failure === undefined,
    actors: tracks.size,
    steps,
    unknownMachines: [...unknown],
    ...(failure ? { failure } : {}),
  });

  for (const { line, value } of lines) {
    if (!isRecord(value)) continue;
    if (isRecord(value.event) && value.event.type === "agent_end") endedLine = line;
    const inspect = value.inspect;
    if (!isRecord(inspect) || typeof inspect.sessionId !== "string") continue;
    if (inspect.type === "@xstate.actor") {
      const machineId = inspect.machineId;
      if (typeof machineId !== "string") continue;
      const machine = machines.get(machineId);
      if (!machine) {
        unknown.add(machineId);
        continue;
      }
      if (inspect.parentId === undefined && machineId === "agentLoop") loopSession ??= inspect.sessionId;
      tracks.set(inspect.sessionId, { actorId: String(inspect.actorId ?? inspect.sessionId), machine, raised: raisedOf(machine), invoked: new Set() });
      continue;
    }
    if (inspect.type !== "@xstate.snapshot") continue;
    const track = tracks.get(inspect.sessionId);
    if (!track || !isRecord(inspect.snapshot)) continue;
    const event = isRecord(inspect.event) && typeof inspect.event.type === "string" ? inspect.event.type : "(unknown event)";
    const to = inspect.snapshot.value as StateValue | undefined;
    const status = typeof inspect.snapshot.status === "string" ? inspect.snapshot.status : undefined;
    const failure = (reason: string): TraceStepFailure => ({
      line,
      actorId: track.actorId,
      machineId: track.machine.id,
      ...(track.value === undefined ? {} : { from: track.value }),
      event,
      ...(to === undefined ? {} : { to }),
      reason,
    });
    if (to === undefined || (typeof to !== "string" && !isRecord(to))) return result(failure("the snapshot has no state value"));
    let target: Configuration;
    try {
      target = configurationOf(track.machine, to);
    } catch (error) {
      return result(failure(`the recorded value is no configuration of ${track.machine.id}: ${(error as Error).message}`));
    }
    if (!track.configuration) {
      if (event !== "xstate.init") return result(failure(`the actor's first snapshot is for ${event}, not xstate.init`));
      const initial = initialConfiguration(track.machine);
      const reachable = macrostepTargets(track.machine, initial, undefined, track.raised);
      steps += 1;
      if (!reachable.has(valueKey(to))) return result(failure(`${describeValue(to)} is not where ${track.machine.id} can start (its initial state is ${describeValue(valueOf(initial, track.machine.root))})`));
    } else if (valueKey(track.value as StateValue) === valueKey(to)) {
      // An event that changes nothing is legal, unless it is one only a state of the chart can cause.
      const cause = internalEventCause(track, event);
      if (cause) {
        steps += 1;
        return result(failure(cause));
      }
    } else {
      steps += 1;
      if (track.status === "done") return result(failure("the actor had already reached a final state"));
      const cause = internalEventCause(track, event);
      if (cause) return result(failure(cause));
      const reachable = macrostepTargets(track.machine, track.configuration, event, track.raised);
      if (!reachable.has(valueKey(to))) {
        const offered = reachable.size === 0 ? `no transition on ${event} leaves ${describeValue(track.value)}` : `${event} from ${describeValue(track.value)} reaches ${[...reachable.keys()].slice(0, 6).join(", ")}${reachable.size > 6 ? ", …" : ""}`;
        return result(failure(`not a transition of the chart: ${offered}`));
      }
    }
    noteInvoked(track, target, event);
    track.configuration = target;
    track.value = to;
    if (status) track.status = status;
  }

  if (endedLine !== undefined && loopSession !== undefined) {
    const loop = tracks.get(loopSession);
    if (loop?.configuration && loop.status !== "done") {
      return result({
        line: endedLine,
        actorId: loop.actorId,
        machineId: loop.machine.id,
        ...(loop.value === undefined ? {} : { from: loop.value }),
        event: "agent_end",
        reason: `the run ended (agent_end) but its loop is in ${describeValue(loop.value)}, not a final state`,
      });
    }
  }
  return result();
}

/**
 * What a tool call reports to its parent (a batch, or the loop on the direct path). Only
 * a call the parent's current state runs sends it, and every state that runs calls
 * handles it: in a configuration that does not, it cannot arrive.
 */
const CALL_REPORTS: ReadonlySet<string> = new Set(["tool.prepared", "tool.settled"]);

/**
 * Why `event` could not have reached an actor in `configuration`, for the events a state
 * causes: an invoked actor's done/error event needs a state that invokes it, a call's
 * report a state that runs calls. Undefined when the event may arrive.
 */
function internalEventCause(track: ActorTrack, event: string): string | undefined {
  const actor = /^xstate\.(?:done|error)\.actor\.(.+)$/.exec(event)?.[1];
  if (actor !== undefined && !track.invoked.has(actor)) {
    return `no state invoked "${actor}" since its last result, so ${event} cannot arrive here`;
  }
  if (CALL_REPORTS.has(event) && track.configuration !== undefined && transitionsOn(track.configuration, event).length === 0) {
    return `no state of ${describeValue(track.value)} runs a tool call, so ${event} cannot arrive here`;
  }
  return undefined;
}

/** Notes the actors `configuration` invokes: their done or error event may arrive from now on, once. */
function noteInvoked(track: ActorTrack, configuration: Configuration, event: string): void {
  const settled = /^xstate\.(?:done|error)\.actor\.(.+)$/.exec(event)?.[1];
  if (settled !== undefined) track.invoked.delete(settled);
  for (const node of configuration) for (const invoke of (node.invoke ?? []) as { id?: string }[]) if (invoke.id) track.invoked.add(invoke.id);
}

/** One line for a person: what was checked, or the first step that is not a transition. */
export function formatTraceVerification(verification: TraceVerification, file?: string): string {
  const where = file ? `${file}:` : "line ";
  if (!verification.failure) {
    const unknown = verification.unknownMachines.length > 0 ? ` (not checked: actors of ${verification.unknownMachines.join(", ")})` : "";
    return `conforms: ${verification.steps} state changes of ${verification.actors} actors are transitions of the chart${unknown}`;
  }
  const { line, actorId, machineId, from, event, to, reason } = verification.failure;
  return `${where}${line}: ${machineId} actor ${actorId}: ${describeValue(from)} --${event}--> ${describeValue(to)}: ${reason}`;
}
