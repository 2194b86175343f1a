/**
 * Transition labels in plain words, for the drawings and the viewer: XState's internal event
 * names become what they mean (`xstate.done.actor.X` → `done`, `xstate.error.actor.X` →
 * `error`, `xstate.after.5000.X` → `after 5s`, a named
 * delay `xstate.after.toolTimeout.X` → `after toolTimeout`, a compound state's `xstate.done.state.X` →
 * `finished`), the guard follows in brackets, and the unguarded branch after guarded ones of the
 * same event reads `[else]`. An unguarded eventless transition has no label.
 */
import type { TransitionDescription } from "./describe-machine.js";

const MS_PER_SECOND = 1_000;
/** A label longer than this many characters puts its guard on a second line. */
export const ONE_LINE_LABEL_CHARS = 26;

/** A delay in plain words: `after 5s`, `after 1.5s`, `after 200ms`. */
function delay(ms: number): string {
  return ms >= MS_PER_SECOND ? `after ${ms / MS_PER_SECOND}s` : `after ${ms}ms`;
}

/** The plain-words name of an event type (`""`, an eventless transition, stays empty). */
export function plainEvent(event: string): string {
  if (event.startsWith("xstate.done.actor.")) return "done";
  if (event.startsWith("xstate.error.actor.")) return "error";
  if (event.startsWith("xstate.done.state.")) return "finished";
  const after = /^xstate\.after\.([^.]+)\./.exec(event);
  if (after) return /^\d+$/.test(after[1] ?? "") ? delay(Number(after[1])) : `after ${after[1]}`;
  return event;
}

/**
 * The label lines of `transition`: `event [guard]` on one line, or event and guard on two when
 * long. `fallback`: it is the unguarded branch after guarded ones (shown as `[else]`).
 */
export function transitionLabel(transition: TransitionDescription, fallback = false): string[] {
  const event = plainEvent(transition.event);
  const guard = transition.guard ? `[${transition.guard}]` : fallback ? "[else]" : "";
  const parts = [event, guard].filter((part) => part !== "");
  const oneLine = parts.join(" ");
  return oneLine.length <= ONE_LINE_LABEL_CHARS ? (oneLine === "" ? [] : [oneLine]) : parts;
}

/** For each transition of `transitions` (same order), whether it is an unguarded branch after guarded ones of its source and event. */
export function fallbackBranches(transitions: readonly TransitionDescription[]): boolean[] {
  const guarded = new Set<string>();
  return transitions.map((transition) => {
    const key = `${transition.source}\u0000${transition.event}`;
    if (transition.guard) {
      guarded.add(key);
      return false;
    }
    return guarded.has(key);
  });
}
