/**
 * Delivers a run's events to the agent's listeners one event at a time, in order.
 *
 * Synchronous listeners are called as the loop emits (no microtask in between),
 * so `agent.state` keeps pace with the loop. When a listener returns a promise,
 * later events queue behind it; {@link EventDelivery.settled} resolves once every
 * event pushed so far has been handled. The first failure (a listener that threw
 * or rejected) is kept and stops delivery of every later event.
 */
import type { AgentEvent } from "../types.js";

/** What handling one event may return. */
export type MaybePromise = void | Promise<void>;

function isThenable(value: unknown): value is PromiseLike<void> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === "function";
}

/**
 * Calls `invoke` on each item in order and returns at once when every call is
 * synchronous; when one returns a promise, the rest run after it settles. A
 * throw or rejection ends the sequence and surfaces to the caller.
 */
export function callInOrder<T>(items: readonly T[], invoke: (item: T) => unknown, from = 0): MaybePromise {
  for (let index = from; index < items.length; index++) {
    const returned = invoke(items[index]);
    if (isThenable(returned)) return Promise.resolve(returned).then(() => callInOrder(items, invoke, index + 1));
  }
}

/** An ordered, failure-stopping sink in front of `handle`. */
export class EventDelivery {
  private tail: Promise<void> | undefined;
  private failed: { error: unknown } | undefined;

  constructor(
    private readonly handle: (event: AgentEvent) => MaybePromise,
    private readonly onFailure: (error: unknown) => void,
  ) {}

  /** The first failure, if a listener threw or rejected. */
  get failure(): { error: unknown } | undefined {
    return this.failed;
  }

  /** Hands `event` on now if nothing is pending, else after everything pushed before it. Never throws. */
  push(event: AgentEvent): void {
    if (this.failed) return;
    const next = this.tail ? this.tail.then(() => this.run(event)) : this.run(event);
    if (!next) return;
    const tail: Promise<void> = next.then(() => {
      if (this.tail === tail) this.tail = undefined;
    });
    this.tail = tail;
  }

  /** Resolves when every event pushed so far was handled (or delivery stopped). Never rejects. */
  settled(): Promise<void> {
    return this.tail ?? Promise.resolve();
  }

  private run(event: AgentEvent): MaybePromise {
    if (this.failed) return;
    try {
      const returned = this.handle(event);
      if (returned) return returned.catch((error: unknown) => this.fail(error));
    } catch (error) {
      this.fail(error);
    }
  }

  private fail(error: unknown): void {
    if (this.failed) return;
    this.failed = { error };
    this.onFailure(error);
  }
}
