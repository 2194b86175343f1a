/**
 * What a run's `inspect` observer receives: XState's inspection events with every snapshot,
 * event and action made readable by {@link sanitizeValue} (long strings truncated, functions
 * dropped, secrets redacted), computed only when the observer reads them.
 */
import type { InspectionCallback, LoopInspectionEvent } from "./inspection-event.js";
import { rememberRawInspectionEvent } from "./raw-inspection-event.js";
import { sanitizeValue } from "./sanitize.js";

/** A snapshot as an inspector sees it: plain data, no methods, no machine. */
export interface ReadableSnapshot {
  status: string;
  value?: unknown;
  context?: unknown;
  output?: unknown;
  error?: unknown;
  /** Child actors by key, each as `{ actorId }`. */
  children?: Record<string, unknown>;
}

type SnapshotLike = { status?: unknown; value?: unknown; context?: unknown; output?: unknown; error?: unknown; children?: unknown };

const readableSnapshots = new WeakMap<object, ReadableSnapshot>();
const readableRefs = new WeakMap<object, object>();

/**
 * The readable copy of an XState snapshot (cached per snapshot: snapshots never change).
 * Never throws.
 */
export function readableSnapshot(snapshot: unknown): ReadableSnapshot {
  if (typeof snapshot !== "object" || snapshot === null) return { status: "active" };
  const cached = readableSnapshots.get(snapshot);
  if (cached) return cached;
  const s = snapshot as SnapshotLike;
  const clean: ReadableSnapshot = {
    status: typeof s.status === "string" ? s.status : "active",
    ...(s.value !== undefined ? { value: sanitizeValue(s.value) } : {}),
    ...(s.context !== undefined ? { context: sanitizeValue(s.context) } : {}),
    ...(s.output !== undefined ? { output: sanitizeValue(s.output) } : {}),
    ...(s.error !== undefined ? { error: sanitizeValue(s.error) } : {}),
    ...(typeof s.children === "object" && s.children !== null ? { children: sanitizeValue(s.children) as Record<string, unknown> } : {}),
  };
  readableSnapshots.set(snapshot, clean);
  return clean;
}

/** The actor ref as an inspector sees it: the same actor, but `getSnapshot()` returns its {@link readableSnapshot}. */
function readableRef<T extends { getSnapshot(): unknown } | undefined>(ref: T): T {
  if (ref === undefined) return ref;
  let proxy = readableRefs.get(ref);
  if (!proxy) {
    proxy = new Proxy<object>(ref, {
      get(target: { getSnapshot(): unknown }, key, receiver) {
        if (key === "getSnapshot") return () => readableSnapshot(target.getSnapshot());
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    readableRefs.set(ref, proxy);
  }
  return proxy as T;
}

/** Defines `key` on `target` as an enumerable getter computing `compute()` once, on first read. */
function lazy(target: object, key: string, compute: () => unknown): void {
  let value: unknown;
  let done = false;
  Object.defineProperty(target, key, {
    enumerable: true,
    configurable: true,
    get() {
      if (!done) {
        value = compute();
        done = true;
      }
      return value;
    },
  });
}

/**
 * The readable form of one inspection event: its actor refs answer `getSnapshot()` with a
 * readable snapshot, and its `snapshot`, `event` and `action` are sanitized copies made on
 * first read (an observer that never reads them costs nothing). Ids, `rootId` and the
 * microstep's transitions are unchanged. `rawInspectionEvent` gives the live event back.
 */
export function readableInspectionEvent(event: LoopInspectionEvent): LoopInspectionEvent {
  const raw = event as unknown as Record<string, unknown>;
  const readable: Record<string, unknown> = { ...raw, actorRef: readableRef(event.actorRef) };
  if ("sourceRef" in event) readable.sourceRef = readableRef(event.sourceRef);
  if ("snapshot" in event) lazy(readable, "snapshot", () => readableSnapshot(raw.snapshot));
  if ("event" in event) lazy(readable, "event", () => sanitizeValue(raw.event));
  if ("action" in event) lazy(readable, "action", () => sanitizeValue(raw.action));
  const result = readable as unknown as LoopInspectionEvent;
  rememberRawInspectionEvent(result, event);
  return result;
}

/** Wraps an inspector so that it receives {@link readableInspectionEvent}s. */
export function readableInspector(next: InspectionCallback): (event: LoopInspectionEvent) => void {
  return (event) => next(readableInspectionEvent(event));
}
