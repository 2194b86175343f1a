/**
 * One pure step of a machine that also records what the step did: the
 * transitions it took (event, eventless and done/error transitions, microstep by
 * microstep), and the actions it would execute (emits, spawns, sends, stops).
 * Nothing is executed and no actor is started.
 */
import {
  createActor,
  createEmptyActor,
  fromCallback,
  type AnyActorRef,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  type AnyTransitionDefinition,
  type EventObject,
  type ExecutableActionsFrom,
} from "xstate";

/** An action the step would execute. */
export type RecordedAction = ExecutableActionsFrom<AnyStateMachine>;

/** What one step did. */
export interface RecordedStep {
  snapshot: AnyMachineSnapshot;
  actions: RecordedAction[];
  transitions: AnyTransitionDefinition[];
  /** Set when the machine threw while taking the step. */
  error?: unknown;
}

/** Records steps of machines; one recorder (and one inert actor scope) serves a whole exploration. */
export interface StepRecorder {
  /** The inert parent of recorded machines (with `withParent`); what `sendParent` and a call's `loop` resolve to. */
  parent: AnyActorRef | undefined;
  /** The actor system recorded machines see (`system.get`): the world registers stand-ins in it. */
  system: AnyActorRef["system"];
  /** The machine's initial snapshot for `input`, with what getting there did. Throws when the machine cannot start. */
  initial(machine: AnyStateMachine, input: unknown): RecordedStep;
  /** The snapshot after `event`, with what the step did. A throwing machine yields `error` and the unchanged snapshot. */
  step(machine: AnyStateMachine, snapshot: AnyMachineSnapshot, event: EventObject): RecordedStep;
}

/** Id of the stand-in parent when a recorder is created with `withParent` (what `sendParent` targets). */
export const PARENT_ID = "parent";

/**
 * Creates a {@link StepRecorder}. Spawned children are created but never
 * started. With `withParent`, the recorded machine runs as a child of an inert
 * parent, so its `sendParent` actions resolve (to {@link PARENT_ID}).
 */
export function createStepRecorder(options: { withParent?: boolean } = {}): StepRecorder {
  const idle = fromCallback(() => undefined);
  const parent = options.withParent ? createActor(idle, { id: PARENT_ID }) : undefined;
  const self = parent ? createActor(idle, { parent }) : createEmptyActor();
  let actions: RecordedAction[] = [];
  let transitions: AnyTransitionDefinition[] = [];
  // Recorded steps never stop a child, so a system id (a call's `toolCall:<id>`) would stay taken
  // by the actor of another path: the newest actor created with a system id takes it over.
  const system = self.system as typeof self.system & { _set: (id: string, ref: AnyActorRef) => void; _unregister: (ref: AnyActorRef) => void };
  const claim = system._set.bind(system);
  system._set = (id, ref) => {
    const holder = system.get(id) as AnyActorRef | undefined;
    if (holder && holder !== ref) system._unregister(holder);
    claim(id, ref);
  };
  self.system.inspect((event) => {
    if (event.type === "@xstate.microstep") transitions.push(...event._transitions);
  });
  const scope = {
    self,
    id: "",
    sessionId: "",
    logger: () => undefined,
    defer: () => undefined,
    stopChild: () => undefined,
    emit: () => undefined,
    system: self.system,
    actionExecutor: (action: RecordedAction) => {
      actions.push(action);
    },
  };
  const reset = () => {
    actions = [];
    transitions = [];
  };
  return {
    parent,
    system: self.system,
    initial(machine, input) {
      reset();
      try {
        const snapshot = machine.getInitialSnapshot(scope as never, input) as AnyMachineSnapshot;
        return { snapshot, actions, transitions };
      } catch (error) {
        throw new Error(`The machine could not start: ${error instanceof Error ? error.message : String(error)}`, {
          cause: error,
        });
      }
    },
    step(machine, snapshot, event) {
      reset();
      try {
        const next = machine.transition(snapshot, event, scope as never) as AnyMachineSnapshot;
        return { snapshot: next, actions, transitions };
      } catch (error) {
        return { snapshot, actions, transitions, error };
      }
    },
  };
}

/** The event an `xstate.emit` action emits, if it is one. */
export function emittedEvent(action: RecordedAction): EventObject | undefined {
  if ((action.type as string) !== "xstate.emit") return undefined;
  return (action.params as { event?: EventObject } | undefined)?.event;
}

/** Target id and event of an `xstate.sendTo` action, if it is one. */
export function sentEvent(action: RecordedAction): { to: string; event: EventObject } | undefined {
  if (action.type !== "xstate.sendTo") return undefined;
  const params = action.params as { to?: { id?: string } | string; event?: EventObject } | undefined;
  if (!params?.event) return undefined;
  const to = typeof params.to === "string" ? params.to : (params.to?.id ?? "");
  return { to, event: params.event };
}

/** Id, source name and input of an `xstate.spawnChild` action, if it is one. */
export function spawnedChild(action: RecordedAction): { id: string; src: string; input: unknown } | undefined {
  if (action.type !== "xstate.spawnChild") return undefined;
  const params = action.params as { id?: string; src?: unknown; input?: unknown } | undefined;
  if (!params?.id) return undefined;
  return { id: params.id, src: typeof params.src === "string" ? params.src : "", input: params.input };
}

/**
 * Id, source name and input of each child in `after` that is not in `before`, in
 * the order they were added: the children a step spawned from an `assign` (its
 * `spawn`), which records no `xstate.spawnChild` action.
 */
export function childrenSpawnedBy(before: Record<string, unknown>, after: Record<string, unknown>): { id: string; src: string; input: unknown }[] {
  const spawned: { id: string; src: string; input: unknown }[] = [];
  for (const [id, child] of Object.entries(after)) {
    if (Object.hasOwn(before, id)) continue;
    const ref = child as { src?: unknown; options?: { input?: unknown } };
    spawned.push({ id, src: typeof ref.src === "string" ? ref.src : "", input: ref.options?.input });
  }
  return spawned;
}

/** Id of the child an `xstate.stopChild` action stops, if it is one. */
export function stoppedChild(action: RecordedAction): string | undefined {
  if ((action.type as string) !== "xstate.stopChild") return undefined;
  const params = action.params as { actorRef?: { id?: string } } | { id?: string } | undefined;
  if (!params) return undefined;
  if ("actorRef" in params && params.actorRef) return params.actorRef.id;
  return (params as { id?: string }).id;
}
