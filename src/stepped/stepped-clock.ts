/**
 * The clock of a stepped run's actor system: every delayed transition the chart
 * schedules (a tool's timeout, a retry's backoff, the abort grace period) parks as
 * a `timer` effect instead of running on the wall clock, so time passes only when a
 * step says so and a parked call cannot time out while it waits for its step.
 */
import type { Gatekeeper } from "./effect-gate.js";

/** XState's `Clock` (`createActor(logic, { clock })`), which the `xstate` entry does not export by name. */
export interface ActorClock {
  setTimeout(fn: (...args: unknown[]) => void, timeout: number): unknown;
  clearTimeout(id: unknown): void;
}

/** One scheduled timer: its handle is the object XState gets back and clears. */
interface Timer {
  real: ReturnType<typeof setTimeout> | undefined;
}

/** A clock whose timers park with `gatekeeper`; one that is let go (after an abort) runs on the wall clock. */
export function steppedClock(gatekeeper: Gatekeeper): ActorClock {
  const timers = new Set<Timer>();
  return {
    setTimeout: (fn, ms) => {
      const timer: Timer = { real: undefined };
      timers.add(timer);
      const fire = () => {
        if (!timers.delete(timer)) return;
        fn();
      };
      const resume = () => {
        if (timers.has(timer)) timer.real = setTimeout(fire, ms);
      };
      const parked = gatekeeper.park({
        effect: { kind: "timer", ms },
        owner: timer,
        release: () => {
          fire();
          return false;
        },
        resume,
      });
      if (!parked) resume();
      return timer;
    },
    clearTimeout: (id) => {
      const timer = id as Timer;
      if (!timers.delete(timer)) return;
      if (timer.real !== undefined) clearTimeout(timer.real);
      gatekeeper.dropped(timer);
    },
  };
}
