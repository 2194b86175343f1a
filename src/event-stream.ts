/**
 * A push-based event stream: async-iterable once, by one consumer, plus a
 * `result()` promise.
 */
import { StreamAlreadyIteratedError } from "./errors/stream-already-iterated-error.js";

/** Options of {@link EventStream}. */
export interface EventStreamOptions {
  /**
   * Called once when the consumer stops iterating before the stream completed:
   * `break`, `return` or a throw inside `for await`, or an explicit
   * `iterator.return()`. The agent loop aborts its run here. Not called when the
   * stream had already completed, nor a second time. A throw from it is swallowed,
   * so stopping a loop never fails because of it.
   */
  onCancel?: () => void;
}

/** Buffered events read past before the buffer is compacted. */
const COMPACT_AFTER = 1024;

/**
 * A push-based event stream: async-iterable once plus a `result()` promise.
 *
 * Events pushed before anyone iterates are buffered. The stream completes when an
 * event satisfies `isComplete` (its result is taken with `extractResult`) or when
 * `end(result)` is called; after that, pushes are ignored.
 *
 * One consumer only: a second `[Symbol.asyncIterator]()` call throws
 * {@link StreamAlreadyIteratedError}. When the consumer stops early (the iterator's
 * `return()`), the buffer is dropped, later pushes are not buffered, `onCancel`
 * runs once, and `result()` still resolves when the completing event or `end`
 * arrives.
 */
export class EventStream<TEvent, TResult = TEvent> implements AsyncIterable<TEvent> {
  private queue: TEvent[] = [];
  private head = 0;
  private readonly waiting: ((value: IteratorResult<TEvent>) => void)[] = [];
  private finished = false;
  private cancelled = false;
  private iterated = false;
  private readonly finalResult: Promise<TResult>;
  private resolveFinal!: (result: TResult) => void;
  private readonly onCancel: (() => void) | undefined;

  constructor(
    private readonly isComplete: (event: TEvent) => boolean,
    private readonly extractResult: (event: TEvent) => TResult,
    options: EventStreamOptions = {},
  ) {
    this.onCancel = options.onCancel;
    this.finalResult = new Promise<TResult>((resolve) => {
      this.resolveFinal = resolve;
    });
  }

  /** Delivers an event to a waiting reader or buffers it. Ignored once the stream is done. */
  push(event: TEvent): void {
    if (this.finished) return;
    if (this.isComplete(event)) {
      this.finished = true;
      this.resolveFinal(this.extractResult(event));
    }
    if (this.cancelled) return;
    const waiter = this.waiting.shift();
    if (waiter) waiter({ value: event, done: false });
    else this.queue.push(event);
    if (this.finished) this.releaseWaiters();
  }

  /** Ends the stream; `result` (when given) resolves `result()` unless a completing event already did. */
  end(result?: TResult): void {
    this.finished = true;
    if (result !== undefined) this.resolveFinal(result);
    this.releaseWaiters();
  }

  /** Resolves with the completing event's result or the value given to `end`. */
  result(): Promise<TResult> {
    return this.finalResult;
  }

  /**
   * The one iterator of this stream.
   *
   * @throws StreamAlreadyIteratedError when called a second time.
   */
  [Symbol.asyncIterator](): AsyncIterator<TEvent> {
    if (this.iterated) throw new StreamAlreadyIteratedError();
    this.iterated = true;
    return {
      next: () => this.next(),
      return: (): Promise<IteratorResult<TEvent>> => {
        this.cancel();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }

  private next(): Promise<IteratorResult<TEvent>> {
    if (this.head < this.queue.length) {
      const value = this.queue[this.head] as TEvent;
      this.queue[this.head] = undefined as unknown as TEvent;
      this.head += 1;
      if (this.head > COMPACT_AFTER && this.head * 2 > this.queue.length) {
        this.queue.splice(0, this.head);
        this.head = 0;
      }
      return Promise.resolve({ value, done: false });
    }
    if (this.finished || this.cancelled) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** The consumer stopped: drop what it will never read, and tell the producer once. */
  private cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.queue = [];
    this.head = 0;
    while (this.waiting.length > 0) this.waiting.shift()?.({ value: undefined, done: true });
    if (this.finished || this.onCancel === undefined) return;
    try {
      this.onCancel();
    } catch {
      // The consumer is leaving; a failing cancel hook must not turn its `break` into a throw.
    }
  }

  private releaseWaiters(): void {
    if (this.head < this.queue.length) return;
    while (this.waiting.length > 0) this.waiting.shift()?.({ value: undefined, done: true });
  }
}
