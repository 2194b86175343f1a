/**
 * An event stream was iterated a second time. A stream delivers each event once,
 * to one consumer; a second `for await` (or `[Symbol.asyncIterator]()` call) would
 * silently receive only the events the first one has not taken yet, so it throws
 * this instead. Collect the events in one loop and fan them out yourself, or await
 * `result()` when only the final value matters.
 */
export class StreamAlreadyIteratedError extends Error {
  override readonly name = "StreamAlreadyIteratedError";

  constructor() {
    super(
      "This event stream is already being iterated: it delivers each event once, to one consumer. " +
        "Read it in one for-await loop and hand the events on yourself, or await result() for the final value.",
    );
  }
}
