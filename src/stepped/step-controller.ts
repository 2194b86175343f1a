/**
 * The bookkeeping of one stepped run: which effects are parked, which released
 * effects still run, and when the run is parked again. It is the run's
 * {@link Gatekeeper}; `createSteppedRun` drives it.
 */
import type { ParkedEffect, Gatekeeper } from "./effect-gate.js";
import type { PendingEffect } from "./pending-effect.js";

/** Resolves on the next macrotask: whatever the last event set off synchronously or on microtasks has happened by then. */
function nextMacrotask(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Parked and running effects of a run. The run is **parked** when no released
 * effect still runs and it waits on something only the driver can give: a parked
 * effect to release, or a decision (approval); or when it has ended. Between an
 * effect's end and the next park the chart runs on its own (synchronously, or on
 * its own timers — a retry's backoff — which `parked()` waits out).
 */
export class StepController implements Gatekeeper {
  /** Parked effects in the order they parked: deterministic, since XState starts actors in a fixed order. */
  private readonly queue: ParkedEffect[] = [];
  private readonly running = new Set<object>();
  /** Nested gates parked inside a running effect (a request's hooks): each holds one running effect still. */
  private nestedParked = 0;
  /** Who waits for the next change: every concurrent `parked()` (a `pending()` beside a `step()`). */
  private readonly waiting = new Set<() => void>();
  private ended = false;
  /** After an abort nothing parks: what remains runs with the aborted signal, as it would in a run not stepped. */
  private releasesAll = false;

  /** @param waitingDecisions the calls waiting for approval now (read from the loop's snapshot). */
  constructor(private readonly waitingDecisions: () => PendingEffect[]) {}

  park(parked: ParkedEffect): boolean {
    this.notify();
    // After an abort the run only has to end: what starts then is not tracked.
    if (this.releasesAll) return false;
    this.queue.push(parked);
    return true;
  }

  finished(owner: object): void {
    this.running.delete(owner);
    this.notify();
  }

  dropped(owner: object): void {
    const index = this.queue.findIndex((parked) => parked.owner === owner);
    if (index >= 0) this.queue.splice(index, 1);
    this.notify();
  }

  /** Something changed (an event, the run's end): a waiting `parked()` looks again. */
  notify(): void {
    const waiting = [...this.waiting];
    this.waiting.clear();
    for (const wake of waiting) wake();
  }

  /** The run ended: nothing parks or runs any more. */
  end(): void {
    this.ended = true;
    this.notify();
  }

  get hasEnded(): boolean {
    return this.ended;
  }

  /** The parked effects, then the decisions waited for. */
  pending(): PendingEffect[] {
    if (this.ended) return [];
    return [...this.queue.map((parked) => parked.effect), ...this.waitingDecisions()];
  }

  /** Resolves once the run is parked (see the class) or has ended. */
  async parked(): Promise<void> {
    for (;;) {
      if (this.isParked()) {
        await nextMacrotask();
        if (this.isParked()) return;
        continue;
      }
      await new Promise<void>((resolve) => this.waiting.add(resolve));
    }
  }

  private isParked(): boolean {
    if (this.ended) return true;
    return this.running.size <= this.nestedParked && (this.queue.length > 0 || this.waitingDecisions().length > 0);
  }

  /**
   * Parks `effect` inside the running effect that awaits this (a hook the model
   * request calls): resolves when it is released (at once after an abort). Its
   * snapshot is the enclosing effect's in flight, which a restore performs again whole.
   */
  parkNested(effect: PendingEffect): Promise<void> {
    if (this.releasesAll) return Promise.resolve();
    return new Promise((resolve) => {
      let waiting = true;
      const release = (): boolean => {
        if (waiting) {
          waiting = false;
          this.nestedParked -= 1;
          resolve();
        }
        return false;
      };
      this.nestedParked += 1;
      this.queue.push({ effect, owner: {}, release, resume: release });
      this.notify();
    });
  }

  /** Takes the parked effect at `index` out of the queue and begins it. */
  release(index: number): PendingEffect {
    const [parked] = this.queue.splice(index, 1);
    if (!parked) throw new RangeError(`no parked effect at ${index}`);
    this.begin(parked);
    return parked.effect;
  }

  /** Index of the first parked effect `accepts`; -1 if none. */
  findParked(accepts: (effect: PendingEffect) => boolean): number {
    return this.queue.findIndex((parked) => accepts(parked.effect));
  }

  /** From now on nothing parks, and every parked effect begins (in the order they parked; a timer goes back on the clock). */
  releaseAll(): void {
    this.releasesAll = true;
    for (const parked of this.queue.splice(0)) {
      if (parked.resume) parked.resume();
      else parked.release();
    }
    this.notify();
  }

  private begin(parked: ParkedEffect): void {
    this.running.add(parked.owner);
    if (!parked.release()) this.running.delete(parked.owner);
  }
}
