/**
 * The steering and follow-up queues of an `Agent` and their public API
 * (pi-agent-core's `steer`, `followUp`, the modes, clearing and peeking), as a
 * base class of `Agent` over its settings. The loop's polls drain them
 * (`agent-loop-config.ts`).
 */
import type { AgentMessage } from "../types.js";
import { checkQueueMode } from "./agent-input.js";
import type { AgentOptions } from "./agent-options.js";
import { AgentSettings } from "./agent-settings.js";
import { DEFAULT_QUEUE_MODE, MessageQueue, type QueueMode } from "./message-queue.js";

export class AgentQueues extends AgentSettings {
  protected readonly steeringQueue: MessageQueue;
  protected readonly followUpQueue: MessageQueue;

  /** Throws `LoopInputError` when `steeringMode`/`followUpMode` is not `"all"` or `"one-at-a-time"`. */
  constructor(options: AgentOptions) {
    super(options);
    this.steeringQueue = new MessageQueue(checkQueueMode(options.steeringMode ?? DEFAULT_QUEUE_MODE, "steeringMode"));
    this.followUpQueue = new MessageQueue(checkQueueMode(options.followUpMode ?? DEFAULT_QUEUE_MODE, "followUpMode"));
  }

  /** How queued steering messages are drained (applies from the next poll). */
  get steeringMode(): QueueMode {
    return this.steeringQueue.mode;
  }
  set steeringMode(mode: QueueMode) {
    this.steeringQueue.mode = checkQueueMode(mode, "steeringMode");
  }

  /** How queued follow-up messages are drained (applies from the next poll). */
  get followUpMode(): QueueMode {
    return this.followUpQueue.mode;
  }
  set followUpMode(mode: QueueMode) {
    this.followUpQueue.mode = checkQueueMode(mode, "followUpMode");
  }

  /**
   * Queues a message to inject into the active run after the current turn's
   * tool calls (or before its first request); it starts another turn. With no
   * run active it waits for the next one (or for `continue()`).
   */
  steer(message: AgentMessage): void {
    this.steeringQueue.enqueue(message);
  }

  /** Queues a message for when the run would otherwise end; it starts another turn. */
  followUp(message: AgentMessage): void {
    this.followUpQueue.enqueue(message);
  }

  /** Removes every queued steering message. */
  clearSteeringQueue(): void {
    this.steeringQueue.clear();
  }

  /** Removes every queued follow-up message. */
  clearFollowUpQueue(): void {
    this.followUpQueue.clear();
  }

  /** Removes every queued steering and follow-up message. */
  clearAllQueues(): void {
    this.clearSteeringQueue();
    this.clearFollowUpQueue();
  }

  /** True when either queue holds a message. */
  hasQueuedMessages(): boolean {
    return this.steeringQueue.size > 0 || this.followUpQueue.size > 0;
  }

  /**
   * pi 1.x: what the next poll would inject, without consuming it — the
   * steering queue's next batch if it has one, else the follow-up queue's (one
   * message in `"one-at-a-time"` mode, all in `"all"`). A new array each call.
   */
  peekQueuedMessages(): AgentMessage[] {
    const steering = this.steeringQueue.peek();
    return steering.length > 0 ? steering : this.followUpQueue.peek();
  }
}
