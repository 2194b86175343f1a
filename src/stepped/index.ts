/** Manual stepping: a run of the shipped chart that parks before every effect. */
export { createSteppedRun, type CreateSteppedRunOptions, type SteppedRun, type StepOutcome } from "./stepped-run.js";
export { describeEffect, type EffectChoice, type PendingEffect, type SteppedHookName } from "./pending-effect.js";
export { SteppedRunError, type SteppedRunErrorReason } from "./stepped-run-error.js";
export { CALL_EFFECTS, LOOP_EFFECTS } from "./stepped-machine.js";
