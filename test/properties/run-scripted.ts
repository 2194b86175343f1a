/**
 * Runs the real engine (real actors, a scripted stream function, scripted tools
 * and hooks) with any loop machine, and checks the run against the same
 * invariant monitor the model checker uses. The machine is a parameter so the
 * seeded faults of the model-check tests can be run here too.
 */
import { createActor, type AnyActorRef, type AnyStateMachine } from "xstate";
import { provideRunActors } from "../../src/agent-loop-actor.js";
import { sequentialToolNames } from "../../src/actors/turn-hook-actors.js";
import { EventStream } from "../../src/event-stream.js";
import { createMonitor, observeEmitted, observeSentToBatch, observeSentToCall, observeWorld, type StepViolation } from "../../src/model-check/protocol-monitor.js";
import { createRunServices, LOOP_SYSTEM_ID } from "../../src/run-environment.js";
import type { AgentEvent, AgentLoopConfig, AgentTool, AssistantMessage, AssistantMessageEvent, StopReason } from "../../src/types.js";
import { assistant, passThrough, testModel, user } from "../helpers/mock-stream.js";

/** What a scripted tool call does. */
export type CallScript = "ok" | "throws" | "unknown" | "badArgs" | "blocked" | "blockedTerminate" | "terminate";

/** One scripted model response. */
export interface ResponseScript {
  kind: "text" | "calls" | "length" | "error";
  calls: { does: CallScript; delayMs: 0 | 1; serial: boolean }[];
}

/** A whole run. */
export interface RunScript {
  responses: ResponseScript[];
  toolExecution: "parallel" | "sequential";
  /** Abort when this many events have been emitted (null: never). */
  abortAfterEvents: number | null;
  steering: boolean[] | null;
  followUp: boolean[] | null;
  stopAfterTurn: boolean[] | null;
  maxTurns: number | null;
}

/**
 * A run still going after this long is stuck. Runs take ~10 ms, but on a loaded 2-core machine
 * the slowest of 2,000 took 0.8 s (and five over 0.6 s), within 3x of the 2 s this was, past
 * which a sound run would count as a hang (I3). The seeded faults' searches end no run by it,
 * so a longer bound costs only the time a real hang takes to be reported.
 */
export const RUN_DEADLINE_MS = 10_000;

const tick = () => new Promise<void>((resolve) => queueMicrotask(resolve));
const sleep = (ms: number) => (ms === 0 ? tick() : new Promise<void>((resolve) => setTimeout(resolve, ms)));

function scriptedStream(script: RunScript) {
  let next = 0;
  return (_model: unknown, _context: unknown, options?: { signal?: AbortSignal }) => {
    const response = script.responses[next++] ?? { kind: "text", calls: [] };
    const stream = new EventStream<AssistantMessageEvent, AssistantMessage>(
      (event) => event.type === "done" || event.type === "error",
      (event) => (event.type === "done" ? event.message : event.type === "error" ? event.error : (undefined as never)),
    );
    const calls =
      response.kind === "calls" || response.kind === "length"
        ? response.calls.map((call, index) => ({
            id: `c${next}.${index + 1}`,
            name: call.does === "unknown" ? "missing" : call.serial ? "serial" : "work",
            arguments: call.does === "badArgs" ? { mode: 42 } : { mode: call.does, delayMs: call.delayMs },
          }))
        : [];
    const stopReason: StopReason = response.kind === "length" ? "length" : response.kind === "error" ? "error" : calls.length ? "toolUse" : "stop";
    void (async () => {
      await tick();
      if (options?.signal?.aborted) {
        stream.push({ type: "error", reason: "aborted", error: assistant({ stopReason: "aborted", errorMessage: "aborted" }) });
        return;
      }
      const final = assistant({ text: "ok", calls, stopReason, ...(stopReason === "error" ? { errorMessage: "boom" } : {}) });
      stream.push({ type: "start", partial: { ...final, content: [] } });
      stream.push({ type: "text_delta", contentIndex: 0, delta: "ok", partial: { ...final, content: [{ type: "text", text: "ok" }] } });
      await tick();
      if (options?.signal?.aborted) {
        stream.push({ type: "error", reason: "aborted", error: assistant({ stopReason: "aborted", errorMessage: "aborted" }) });
        return;
      }
      stream.push(stopReason === "error" ? { type: "error", reason: "error", error: final } : { type: "done", reason: stopReason, message: final });
    })();
    return stream;
  };
}

const parameters = {
  type: "object",
  properties: { mode: { type: "string" }, delayMs: { type: "number" } },
  required: ["mode"],
} as const;

function makeTool(name: string, serial: boolean): AgentTool {
  return {
    name,
    label: name,
    description: "scripted",
    parameters,
    ...(serial ? { executionMode: "sequential" as const } : {}),
    execute: async (_id, args, _signal, onUpdate) => {
      const { mode, delayMs } = args as { mode: string; delayMs: 0 | 1 };
      onUpdate?.({ content: [{ type: "text", text: "…" }], details: {} });
      await sleep(delayMs);
      if (mode === "throws") throw new Error("tool failed");
      return { content: [{ type: "text", text: "done" }], details: {}, ...(mode === "terminate" ? { terminate: true } : {}) };
    },
  } as AgentTool;
}

/** The outcome of a scripted run: its events and the invariant violations found. */
export interface ScriptedRun {
  events: AgentEvent[];
  violations: StepViolation[];
}

/** Runs `script` on the real engine with `machine` (default: the shipped loop machine's runtime wiring). */
export async function runScripted(script: RunScript, machine: AnyStateMachine): Promise<ScriptedRun> {
  const controller = new AbortController();
  const monitor = createMonitor(script.maxTurns);
  const violations: StepViolation[] = [];
  const events: AgentEvent[] = [];
  const polls = { steering: 0, followUp: 0, stop: 0 };
  const poll = (flags: boolean[] | null, key: "steering" | "followUp") => async () => {
    const deliver = flags?.[polls[key]++] === true;
    if (deliver) observeWorld(monitor, { pendingDelivered: true });
    return deliver ? [user(key)] : [];
  };
  const config: AgentLoopConfig = {
    model: testModel,
    convertToLlm: passThrough,
    toolExecution: script.toolExecution,
    ...(script.maxTurns !== null ? { maxTurns: script.maxTurns } : {}),
    ...(script.steering ? { getSteeringMessages: poll(script.steering, "steering") } : {}),
    ...(script.followUp ? { getFollowUpMessages: poll(script.followUp, "followUp") } : {}),
    ...(script.stopAfterTurn
      ? {
          shouldStopAfterTurn: () => {
            const stop = script.stopAfterTurn?.[polls.stop++] === true;
            if (stop) observeWorld(monitor, { stopRequested: true });
            return stop;
          },
        }
      : {}),
    beforeToolCall: async ({ args }) => {
      const mode = (args as { mode?: string }).mode;
      if (mode === "blocked") return { block: true };
      if (mode === "blockedTerminate") return { block: true, terminate: true } as never;
      return undefined;
    },
  };
  const tools = [makeTool("work", false), makeTool("serial", true)];
  // Every event of the run, in order: the chart's own (through actor.on) and the streaming
  // updates the model and tool actors deliver to the sink directly.
  const onEvent = (event: AgentEvent) => {
    events.push(event);
    if (event.type === "message_end" && (event.message as { role?: string }).role === "assistant") {
      const message = event.message as AssistantMessage;
      observeWorld(monitor, {
        response: { stopReason: message.stopReason, calls: message.content.flatMap((block) => (block.type === "toolCall" ? [block.id] : [])) },
      });
    }
    violations.push(...observeEmitted(monitor, event));
    if (script.abortAfterEvents !== null && events.length === script.abortAfterEvents) controller.abort();
  };
  const env = createRunServices({ config, streamFn: scriptedStream(script) as never, signal: controller.signal, tools });
  // The runtime's own actor wiring, applied to the machine under test (and the batch machine it provides).
  const provided = provideRunActors(env, machine as never);
  const ref: { loop?: unknown } = {};
  const actor = createActor(provided, {
    systemId: LOOP_SYSTEM_ID,
    input: {
      systemPrompt: "",
      messages: [user("go")],
      prompts: [user("go")],
      model: testModel,
      toolExecution: script.toolExecution,
      sequentialTools: sequentialToolNames(env),
      ...(script.maxTurns !== null ? { maxTurns: script.maxTurns } : {}),
      hooks: {
        steering: script.steering !== null,
        followUp: script.followUp !== null,
        shouldStopAfterTurn: script.stopAfterTurn !== null,
        prepareNextTurn: false,
        beforeToolCall: true,
        afterToolCall: false,
      },
    },
    inspect: (inspection) => {
      // Every actor of the run emits its own events (the loop, each call, the model request).
      if (inspection.type === "@xstate.actor") (inspection.actorRef as AnyActorRef).on("*", onEvent as never);
      // The loop learns of the abort when it processes run.abort, not when the signal fires.
      if (inspection.type === "@xstate.microstep" && inspection.actorRef === ref.loop && inspection.event.type === "run.abort") {
        observeWorld(monitor, { abort: true });
      }
      if (inspection.type !== "@xstate.event") return;
      // A call rejected in preparation tells its batch: the invalid-call breaker's row.
      observeSentToBatch(monitor, inspection.event);
      // The batch's events to its calls.
      if (!inspection.event.type.startsWith("call.")) return;
      const target = inspection.actorRef as { id?: string };
      violations.push(...observeSentToCall(monitor, target.id ?? "?", inspection.event.type));
    },
  });
  ref.loop = actor;
  controller.signal.addEventListener("abort", () => actor.send({ type: "run.abort" }), { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  await new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      violations.push({ invariant: "I3", message: `the run did not end within ${RUN_DEADLINE_MS} ms` });
      actor.stop();
      resolve();
    }, RUN_DEADLINE_MS);

    actor.subscribe({
      complete: () => resolve(),
      error: (error) => {
        violations.push({ invariant: "I3", message: `the loop actor failed: ${String(error)}` });
        resolve();
      },
    });
    actor.start();
  });
  clearTimeout(timer);
  if (!monitor.ended && !violations.some((violation) => violation.invariant === "I3")) violations.push({ invariant: "I4", message: "the run ended without agent_end" });
  return { events, violations };
}
