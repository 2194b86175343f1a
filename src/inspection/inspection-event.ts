/**
 * XState's inspection events and inspectors as loopchart's public declarations describe
 * them, written out here instead of imported from `xstate`: a user who type-checks with
 * `skipLibCheck: false` would otherwise load and check all of XState's declarations (about
 * a second) through the main entry. Every XState `InspectionEvent` is a
 * {@link LoopInspectionEvent}, so XState's inspectors (`@statelyai/inspect`'s
 * `inspector.inspect`, a function taking XState's `InspectionEvent`) are
 * {@link LoopInspector}s, and loopchart's inspectors (`recordTrace(…).inspect`,
 * `readableInspector(…)`) can be given to XState's `createActor({ inspect })`
 * (`test/inspection/inspection-event-types.test.ts` holds both directions).
 */

/** An event object as inspection events carry it: XState's `AnyEventObject`. */
export interface InspectedEventObject {
  readonly type: string;
  readonly [key: string]: unknown;
}

/** An actor as inspection events name it: XState's `ActorRefLike`. */
export interface InspectedActorRef {
  readonly sessionId: string;
  send(event: InspectedEventObject): void;
  getSnapshot(): unknown;
}

/** A snapshot as inspection events carry it: XState's `Snapshot<unknown>` (a machine's has `value` and `context` too). */
export interface InspectedSnapshot {
  readonly status: "active" | "done" | "error" | "stopped";
  readonly output?: unknown;
  readonly error?: unknown;
}

interface InspectedBase {
  /** The session id of the run's root actor. */
  readonly rootId: string;
  /** The actor of the snapshot, the recipient of the event, or the registered actor. */
  readonly actorRef: InspectedActorRef;
}

/** XState's `InspectionEvent`: a snapshot, an event sent, an actor created, a transition or microstep taken, an action run. */
export type LoopInspectionEvent =
  | (InspectedBase & { readonly type: "@xstate.snapshot" | "@xstate.transition"; readonly event: InspectedEventObject; readonly snapshot: InspectedSnapshot })
  | (InspectedBase & {
      readonly type: "@xstate.microstep";
      readonly event: InspectedEventObject;
      readonly snapshot: InspectedSnapshot;
      readonly _transitions: readonly unknown[];
    })
  | (InspectedBase & { readonly type: "@xstate.action"; readonly action: { readonly type: string; readonly params: unknown } })
  | (InspectedBase & { readonly type: "@xstate.event"; readonly sourceRef: InspectedActorRef | undefined; readonly event: InspectedEventObject })
  | (InspectedBase & { readonly type: "@xstate.actor" });

/** An inspector as an observer: XState's `Observer<InspectionEvent>`. */
export interface InspectionObserver {
  next?(event: LoopInspectionEvent): void;
  error?(error: unknown): void;
  complete?(): void;
}

/**
 * An inspector as a function. Declared through a method so that its parameter is compared
 * both ways, as XState's own inspector functions are: a function that takes XState's
 * narrower `InspectionEvent` is one.
 */
export type InspectionCallback = { inspect(event: LoopInspectionEvent): void }["inspect"];

/** What `inspect` options take: XState's `Observer<InspectionEvent> | ((event: InspectionEvent) => void)`. */
export type LoopInspector = InspectionObserver | InspectionCallback;
