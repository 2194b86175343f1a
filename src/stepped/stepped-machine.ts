/**
 * The stepped run's machine: the shipped loop with its run actors (the same
 * machine every run uses, `runMachine`), re-provided with each effect actor
 * behind a gate. The loop, batch and call machines are the chart's own; only the
 * named effect actors below are wrapped, and nothing else changes.
 *
 * To park before a new effect actor, add its name and how to describe it to
 * {@link LOOP_EFFECTS} (an actor the loop invokes) or {@link CALL_EFFECTS} (an
 * actor of a tool call): one line.
 */
import type { AnyActorLogic, AnyStateMachine } from "xstate";
import type { agentLoopMachine } from "../../machines/agent-loop.machine.js";
import type { RequestModelInput } from "../../machines/events.js";
import type { ExecuteToolInput } from "../../machines/tool-call.machine.js";
import { linkSlices } from "../../machines/tool-batch.machine.js";
import { runMachine } from "../agent-loop-actor.js";
import { heardBy } from "../heard-by.js";
import { listenerIn, servicesIn, type RunSystem } from "../run-environment.js";
import { gated, type DescribeEffect, type GatekeeperSource } from "./effect-gate.js";
import type { SteppedHookName } from "./pending-effect.js";

type LoopMachine = typeof agentLoopMachine;

const hook =
  (name: SteppedHookName): DescribeEffect =>
  () => ({ kind: "hook", name });

/** A call hook's effect, naming its call (every call actor's input carries its `toolCall`). */
const callHook =
  (name: (system: RunSystem) => SteppedHookName): DescribeEffect =>
  (input, system) => {
    const { toolCall } = input as ExecuteToolInput;
    return { kind: "hook", name: name(system), toolCallId: toolCall.id, toolName: toolCall.name };
  };

/** The effect actors the loop invokes, by their name in the chart. */
export const LOOP_EFFECTS: Readonly<Record<string, DescribeEffect>> = {
  requestModel: (input) => ({ kind: "request", turn: (input as RequestModelInput).turn }),
  pollSteering: hook("getSteeringMessages"),
  pollFollowUp: hook("getFollowUpMessages"),
  checkStopAfterTurn: hook("shouldStopAfterTurn"),
  finishTurn: hook("finishTurn"),
  prepareNextTurn: hook("prepareNextTurn"),
  prepareRequest: hook("prepareRequest"),
  compactContext: hook("compaction"),
};

/** The effect actors of one tool call, by their name in the call's chart. */
export const CALL_EFFECTS: Readonly<Record<string, DescribeEffect>> = {
  // The actor validates, then asks beforeToolCall; without that hook, only a needsApproval function makes it run.
  prepareCall: callHook((system) => (servicesIn(system).config.beforeToolCall ? "beforeToolCall" : "needsApproval")),
  executeTool: (input) => {
    const { toolCall } = input as ExecuteToolInput;
    return { kind: "tool", toolCallId: toolCall.id, toolName: toolCall.name };
  },
  afterToolCall: callHook(() => "afterToolCall"),
};

/** The machine's provided actors named in `effects`, each behind a gate. Throws when the chart has no actor of a name. */
function gateActors(machine: AnyStateMachine, effects: Readonly<Record<string, DescribeEffect>>, gatekeeperOf: GatekeeperSource): Record<string, AnyActorLogic> {
  const actors = machine.implementations.actors as Record<string, AnyActorLogic | undefined>;
  return Object.fromEntries(
    Object.entries(effects).map(([name, describe]) => {
      const logic = actors[name];
      if (!logic) throw new Error(`the chart has no actor named ${JSON.stringify(name)} to step (machine ${machine.id})`);
      return [name, gated(logic, describe, gatekeeperOf)];
    }),
  );
}

/** Builds the gated machine from the run machine: the loop's effect actors, and the calls' — inside its batch (and slices), and the direct path's calls. */
export function gatedRunMachine(gatekeeperOf: GatekeeperSource, base: LoopMachine = runMachine()): LoopMachine {
  const loopActors = base.implementations.actors as Record<string, AnyActorLogic | undefined>;
  const batch = loopActors.toolBatch as AnyStateMachine | undefined;
  const call = (batch?.implementations.actors as Record<string, AnyActorLogic | undefined> | undefined)?.toolCall as AnyStateMachine | undefined;
  if (!batch || !call) throw new Error("the loop machine provides no tool batch with a toolCall machine to step");
  const heard = <T extends AnyStateMachine>(logic: T): T => heardBy(logic, listenerIn);
  const toolCall = heard(call.provide({ actors: gateActors(call, CALL_EFFECTS, gatekeeperOf) }) as AnyStateMachine);
  const toolBatch = linkSlices(batch.provide({ actors: { toolCall } }) as AnyStateMachine, heard);
  // The direct path's calls (`dispatching.alone`) are the same gated call.
  return base.provide({ actors: { ...gateActors(base, LOOP_EFFECTS, gatekeeperOf), toolBatch, toolCall } as never });
}
