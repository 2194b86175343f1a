/**
 * The steering and follow-up queues of an `Agent`. Plain data: messages in the
 * order they were queued, drained by the loop's `getSteeringMessages` /
 * `getFollowUpMessages` hooks.
 */
import type { AgentMessage } from "../types.js";

/**
 * How a queue is drained when the loop polls it.
 * - `"one-at-a-time"` (default): the oldest message only; the rest wait for the next poll.
 * - `"all"`: every queued message at once, in queue order.
 */
export type QueueMode = "all" | "one-at-a-time";

/** The default mode of both queues (pi-agent-core 0.73 and 1.x agree). */
export const DEFAULT_QUEUE_MODE: QueueMode = "one-at-a-time";

/** A FIFO of messages drained according to its (changeable) mode. */
export class MessageQueue {
  private messages: AgentMessage[] = [];

  constructor(public mode: QueueMode) {}

  enqueue(message: AgentMessage): void {
    this.messages.push(message);
  }

  get size(): number {
    return this.messages.length;
  }

  /** What the next drain would return, without removing it (a copy). */
  peek(): AgentMessage[] {
    if (this.mode === "all") return this.messages.slice();
    return this.messages.length > 0 ? [this.messages[0]] : [];
  }

  /** Removes and returns what {@link peek} shows. */
  drain(): AgentMessage[] {
    const drained = this.peek();
    this.messages = this.messages.slice(drained.length);
    return drained;
  }

  clear(): void {
    this.messages = [];
  }
}
