import { describe, expect, it } from "vitest";
import { createActor, createMachine, fromPromise, type AnyActorRef } from "xstate";
import { fromControlledPromise, isRunning } from "../../src/actors/controlled-promise.js";

/** A promise settled from outside. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A parent that invokes `logic` while in `running` and leaves on `leave` (stopping it). */
function parentOf(logic: ReturnType<typeof fromControlledPromise<string, { n: number }, { type: "note" }>>) {
  return createMachine({
    initial: "running",
    states: {
      running: { invoke: { id: "work", src: logic, input: { n: 1 }, onDone: "done", onError: "failed" }, on: { leave: "left" } },
      done: {},
      failed: {},
      left: {},
    },
  });
}

describe("fromControlledPromise", () => {
  it("settles like fromPromise: done with the work's output, persisted the same way", async () => {
    const work = deferred<string>();
    const seen: unknown[] = [];
    const logic = fromControlledPromise<string, { n: number }, { type: "note" }>(({ input }) => {
      seen.push(input);
      return work.promise;
    });
    const controlled = createActor(logic, { input: { n: 1 } });
    const plain = createActor(fromPromise<string, { n: number }>(() => work.promise), { input: { n: 1 } });
    controlled.start();
    plain.start();
    expect(seen).toEqual([{ n: 1 }]);
    expect(controlled.getPersistedSnapshot()).toEqual(plain.getPersistedSnapshot());
    expect(isRunning(controlled)).toBe(true);
    work.resolve("out");
    await work.promise;
    await Promise.resolve();
    expect(controlled.getSnapshot()).toMatchObject({ status: "done", output: "out" });
    expect(controlled.getPersistedSnapshot()).toEqual(plain.getPersistedSnapshot());
    expect(isRunning(controlled)).toBe(false);
  });

  it("a rejection ends the invoking state's onError, as fromPromise's does", async () => {
    const work = deferred<string>();
    const actor = createActor(parentOf(fromControlledPromise(() => work.promise))).start();
    work.reject(new Error("boom"));
    await work.promise.catch(() => undefined);
    await Promise.resolve();
    expect(actor.getSnapshot().value).toBe("failed");
  });

  it("a stop aborts the controller with an AbortError, the work is no longer running as its listeners hear it, and a late settle is ignored", async () => {
    const work = deferred<string>();
    const heard: { reason: unknown; running: boolean }[] = [];
    let self: AnyActorRef | undefined;
    const logic = fromControlledPromise<string, { n: number }, { type: "note" }>(({ controller, self: me }) => {
      self = me;
      controller.signal.addEventListener("abort", () => heard.push({ reason: controller.signal.reason, running: isRunning(me) }));
      return work.promise;
    });
    const actor = createActor(parentOf(logic)).start();
    expect(self && isRunning(self)).toBe(true);
    actor.send({ type: "leave" });
    expect(heard).toHaveLength(1);
    expect(heard[0]?.running).toBe(false);
    expect(heard[0]?.reason).toBeInstanceOf(DOMException);
    expect((heard[0]?.reason as DOMException).name).toBe("AbortError");
    work.resolve("late");
    await work.promise;
    await Promise.resolve();
    expect(actor.getSnapshot().value).toBe("left");
  });

  it("the work may abort its controller for its own reason; a later stop adds nothing", async () => {
    const work = deferred<string>();
    const reasons: unknown[] = [];
    const logic = fromControlledPromise<string, { n: number }, { type: "note" }>(({ controller }) => {
      controller.signal.addEventListener("abort", () => reasons.push(controller.signal.reason));
      controller.abort("run aborted");
      return work.promise;
    });
    const actor = createActor(parentOf(logic)).start();
    actor.send({ type: "leave" });
    expect(reasons).toEqual(["run aborted"]);
  });
});
