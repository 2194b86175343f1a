/**
 * A push-based event stream: async-iterable (once) plus a `result()` promise.
 *
 * Events pushed before anyone iterates are buffered. The stream completes when an
 * event satisfies `isComplete` (its result is taken with `extractResult`) or when
 * `end(result)` is called; after that, pushes are ignored.
 */
export class EventStream<TEvent, TResult = TEvent> implements AsyncIterable<TEvent> {
  private readonly queue: TEvent[] = [];
  private head = 0;
  private readonly waiting: ((value: IteratorResult<TEvent>) => void)[] = [];
  private finished = false;
  private readonly finalResult: Promise<TResult>;
  private resolveFinal!: (result: TResult) => void;

  constructor(
    private readonly isComplete: (event: TEvent) => boolean,
    private readonly extractResult: (event: TEvent) => TResult,
  ) {
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

  [Symbol.asyncIterator](): AsyncIterator<TEvent> {
    return {
      next: (): Promise<IteratorResult<TEvent>> => {
        if (this.head < this.queue.length) {
          const value = this.queue[this.head] as TEvent;
          this.queue[this.head] = undefined as unknown as TEvent;
          this.head += 1;
          if (this.head > 1024 && this.head * 2 > this.queue.length) {
            this.queue.splice(0, this.head);
            this.head = 0;
          }
          return Promise.resolve({ value, done: false });
        }
        if (this.finished) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => this.waiting.push(resolve));
      },
    };
  }

  private releaseWaiters(): void {
    if (this.head < this.queue.length) return;
    while (this.waiting.length > 0) this.waiting.shift()?.({ value: undefined, done: true });
  }
}
