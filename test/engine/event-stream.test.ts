import { describe, expect, it } from "vitest";
import { EventStream } from "../../src/event-stream.js";
import { StreamAlreadyIteratedError } from "../../src/errors/index.js";

type Event = { type: "tick"; n: number } | { type: "end"; total: number };

function numbers(onCancel?: () => void): EventStream<Event, number> {
  return new EventStream<Event, number>(
    (event) => event.type === "end",
    (event) => (event.type === "end" ? event.total : -1),
    onCancel ? { onCancel } : {},
  );
}

describe("EventStream", () => {
  it("should deliver buffered and later events in order and resolve result()", async () => {
    const stream = numbers();
    stream.push({ type: "tick", n: 1 });
    queueMicrotask(() => {
      stream.push({ type: "tick", n: 2 });
      stream.push({ type: "end", total: 2 });
      stream.push({ type: "tick", n: 3 });
    });
    const seen: Event[] = [];
    for await (const event of stream) seen.push(event);
    expect(seen).toEqual([{ type: "tick", n: 1 }, { type: "tick", n: 2 }, { type: "end", total: 2 }]);
    await expect(stream.result()).resolves.toBe(2);
  });

  it("should call onCancel once when the consumer breaks out of for await", async () => {
    let cancels = 0;
    const stream = numbers(() => {
      cancels += 1;
    });
    stream.push({ type: "tick", n: 1 });
    stream.push({ type: "tick", n: 2 });
    for await (const event of stream) {
      if (event.type === "tick") break;
    }
    expect(cancels).toBe(1);
  });

  it("should call onCancel when the body of for await throws", async () => {
    let cancels = 0;
    const stream = numbers(() => {
      cancels += 1;
    });
    stream.push({ type: "tick", n: 1 });
    await expect(
      (async () => {
        for await (const _event of stream) throw new Error("consumer failed");
      })(),
    ).rejects.toThrow("consumer failed");
    expect(cancels).toBe(1);
  });

  it("should call onCancel only once however often return() is called", async () => {
    let cancels = 0;
    const stream = numbers(() => {
      cancels += 1;
    });
    const iterator = stream[Symbol.asyncIterator]();
    await iterator.return?.();
    await iterator.return?.();
    expect(cancels).toBe(1);
    await expect(iterator.next()).resolves.toEqual({ value: undefined, done: true });
  });

  it("should not call onCancel when the stream had already completed", async () => {
    let cancels = 0;
    const stream = numbers(() => {
      cancels += 1;
    });
    stream.push({ type: "end", total: 0 });
    for await (const event of stream) {
      if (event.type === "end") break;
    }
    expect(cancels).toBe(0);
  });

  it("should end a pending next() when the consumer returns", async () => {
    const stream = numbers(() => undefined);
    const iterator = stream[Symbol.asyncIterator]();
    const pending = iterator.next();
    await iterator.return?.();
    await expect(pending).resolves.toEqual({ value: undefined, done: true });
  });

  it("should keep result() working after the consumer left, and stop buffering", async () => {
    const stream = numbers(() => undefined);
    const iterator = stream[Symbol.asyncIterator]();
    await iterator.return?.();
    stream.push({ type: "tick", n: 1 });
    stream.push({ type: "end", total: 1 });
    await expect(stream.result()).resolves.toBe(1);
    await expect(iterator.next()).resolves.toEqual({ value: undefined, done: true });
  });

  it("should swallow a throwing onCancel so that break stays a break", async () => {
    const stream = numbers(() => {
      throw new Error("abort failed");
    });
    stream.push({ type: "tick", n: 1 });
    for await (const _event of stream) break;
    stream.push({ type: "end", total: 1 });
    await expect(stream.result()).resolves.toBe(1);
  });

  it("should refuse a second consumer with StreamAlreadyIteratedError", () => {
    const stream = numbers();
    stream[Symbol.asyncIterator]();
    expect(() => stream[Symbol.asyncIterator]()).toThrow(StreamAlreadyIteratedError);
    expect(() => stream[Symbol.asyncIterator]()).toThrow(/already being iterated/);
  });

  it("should refuse a second for await even after the first one finished", async () => {
    const stream = numbers();
    stream.push({ type: "end", total: 0 });
    for await (const _event of stream) {
      // drain
    }
    await expect(
      (async () => {
        for await (const _event of stream) {
          // never reached
        }
      })(),
    ).rejects.toBeInstanceOf(StreamAlreadyIteratedError);
  });
});
