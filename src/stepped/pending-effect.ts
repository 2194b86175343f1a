/**
 * What a stepped run would do next: the effects it is parked before, and the
 * decisions it waits for. Plain JSON data, so a test can compare and print them.
 */

/** The hooks a stepped run parks before, each the name of the config function the effect calls. */
export type SteppedHookName =
  | "getSteeringMessages"
  | "getFollowUpMessages"
  | "shouldStopAfterTurn"
  | "finishTurn"
  | "prepareNextTurn"
  | "prepareRequest"
  | "beforeToolCall"
  | "needsApproval"
  | "afterToolCall"
  // The compaction summarizer (`config.compaction`: the run's model, or `compaction.summarize`):
  | "compaction"
  // Inside the model request, parked only with `requestHooks: true`:
  | "transformContext"
  | "convertToLlm"
  | "getApiKey";

/**
 * One effect a stepped run is parked before (its actor is invoked, its work not
 * begun), or one decision it waits for:
 *
 * - `request`: the model request of turn `turn` (transformContext → convertToLlm →
 *   getApiKey → the stream function, read to its end);
 * - `tool`: one call's `execute`;
 * - `hook`: one hook call; a call hook (`beforeToolCall`, whose actor also validates
 *   the arguments and asks a `needsApproval` function, and `afterToolCall`) names its call;
 *   `transformContext`, `convertToLlm` and `getApiKey` park inside a request that was
 *   stepped, when the run was created with `requestHooks: true`;
 * - `timer`: a delayed transition of the chart coming due after `ms` (a tool's
 *   timeout, a retry's backoff, the abort grace period): time passes only when a step
 *   performs it, so `step()` without a choice takes a timer only when nothing else is pending;
 * - `approval`: a call waiting for `approve` / `reject` — not an effect: `step`
 *   never performs it.
 */
export type PendingEffect =
  | { kind: "request"; turn: number }
  | { kind: "tool"; toolCallId: string; toolName: string }
  | { kind: "hook"; name: SteppedHookName; toolCallId?: string; toolName?: string }
  | { kind: "timer"; ms: number }
  | { kind: "approval"; toolCallId: string; toolName: string };

/**
 * Which pending effect `step` performs: the first pending effect (in the order they
 * parked: source order for a batch's calls) whose fields equal every field given;
 * a timer only when `kind: "timer"` is given or nothing else matches.
 * `{ toolCallId: "b" }` picks call `b`'s effect, `{ kind: "hook", name: "afterToolCall" }`
 * the first parked `afterToolCall`.
 */
export interface EffectChoice {
  kind?: Exclude<PendingEffect["kind"], "approval">;
  toolCallId?: string;
  name?: SteppedHookName;
}

const CHOICE_KEYS = new Set(["kind", "toolCallId", "name"]);
const CHOICE_KINDS = new Set(["request", "tool", "hook", "timer"]);

/** Throws a TypeError naming what was expected when `choice` is not an {@link EffectChoice} (a typo would otherwise match anything). */
export function assertEffectChoice(choice: unknown): asserts choice is EffectChoice {
  if (typeof choice !== "object" || choice === null || Array.isArray(choice)) {
    throw new TypeError(`step(choice) takes an object such as { toolCallId: "call_1" } or { kind: "hook", name: "afterToolCall" }, got ${JSON.stringify(choice)}`);
  }
  const unknown = Object.keys(choice).filter((key) => !CHOICE_KEYS.has(key));
  if (unknown.length > 0) throw new TypeError(`step(choice) knows kind, toolCallId and name, not ${unknown.join(", ")}`);
  const { kind, toolCallId, name } = choice as Record<string, unknown>;
  if (kind !== undefined && !CHOICE_KINDS.has(kind as string)) throw new TypeError(`step(choice).kind is "request", "tool", "hook" or "timer", got ${JSON.stringify(kind)}`);
  if (toolCallId !== undefined && typeof toolCallId !== "string") throw new TypeError(`step(choice).toolCallId must be a string, got ${JSON.stringify(toolCallId)}`);
  if (name !== undefined && typeof name !== "string") throw new TypeError(`step(choice).name must be a hook's name, got ${JSON.stringify(name)}`);
}

/** Whether `effect` is what `choice` asks for. */
export function matchesChoice(effect: PendingEffect, choice: EffectChoice): boolean {
  if (effect.kind === "approval") return false;
  if (choice.kind !== undefined && effect.kind !== choice.kind) return false;
  if (choice.toolCallId !== undefined && (!("toolCallId" in effect) || effect.toolCallId !== choice.toolCallId)) return false;
  if (choice.name !== undefined && (effect.kind !== "hook" || effect.name !== choice.name)) return false;
  return true;
}

/** `effect` in a few words, for error messages: `request (turn 1)`, `tool b (echo)`, `hook afterToolCall (b)`. */
export function describeEffect(effect: PendingEffect): string {
  switch (effect.kind) {
    case "request":
      return `request (turn ${effect.turn})`;
    case "tool":
      return `tool ${effect.toolCallId} (${effect.toolName})`;
    case "hook":
      return effect.toolCallId === undefined ? `hook ${effect.name}` : `hook ${effect.name} (${effect.toolCallId})`;
    case "timer":
      return `timer ${effect.ms} ms`;
    case "approval":
      return `approval of ${effect.toolCallId} (${effect.toolName})`;
    default: {
      const never: never = effect;
      return String(never);
    }
  }
}
