/**
 * Checks of the messages user functions hand the loop at run time — steering and
 * follow-up polls, `transformContext` — and the message test `assertPrompts`
 * shares. Pure; never throw: a problem comes back as text naming the hook and what
 * it returned, for the loop to end the run (or the turn) with.
 */
import { failed, passed, type Checked } from "./checked.js";
import { describeValue, readProperty } from "./describe-value.js";
import type { AgentMessage } from "./types.js";

/** What a message must be, as error texts state it. */
export const MESSAGE_SHAPE = 'a message object with a string `role`, e.g. { role: "user", content: "hello", timestamp: Date.now() }';

/**
 * Why `value` is not a message (phrased after "is"), or `undefined` when it is an
 * object with a non-empty string `role`. Never throws.
 */
export function messageProblem(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return `${describeValue(value)}, not a message object`;
  const role = readProperty(value, "role");
  if (typeof role !== "string" || role === "") return `${describeValue(value)}, whose \`role\` is ${describeValue(role)}`;
  return undefined;
}

/**
 * Checks what `getSteeringMessages` or `getFollowUpMessages` resolved to.
 *
 * `undefined` and `null` count as "no messages" (pi treats any falsy result so).
 * An array of messages passes as the same array. Anything else — `{}`, `"abc"`,
 * an array holding `null` or objects without a `role` — is an error text naming
 * `hookName` and what it returned, e.g. `getSteeringMessages returned the string
 * "abc"; it must resolve to an array of messages (or [] for none)`. Never throws.
 */
export function checkSteeringMessages(value: unknown, hookName: string): Checked<AgentMessage[]> {
  if (value === undefined || value === null) return passed([]);
  if (!Array.isArray(value)) return failed(`${hookName} returned ${describeValue(value)}; it must resolve to an array of messages (or [] for none)`);
  const problem = firstEntryProblem(value, 0);
  if (problem !== undefined) return failed(`${hookName} returned an array whose ${problem}; each entry must be ${MESSAGE_SHAPE}`);
  return passed(value as AgentMessage[]);
}

/**
 * How far each array `transformContext` returned was already checked. A hook that
 * returns the live transcript hands back the same, only-growing array every turn;
 * checking just its new tail keeps a long run linear.
 */
const checkedLength = new WeakMap<unknown[], number>();

/**
 * Checks what `transformContext` resolved to: it must be an array of messages.
 * `undefined` (a hook that forgot to `return`) or any non-array is an error text
 * naming the hook, as is an entry that is not a message. An array passes as the
 * same array; an array seen before is checked again only from where the last
 * passed check ended (it was shorter), or from the start when it shrank — an entry
 * replaced in place below that point is not seen again. Never throws.
 */
export function checkTransformedContext(value: unknown): Checked<AgentMessage[]> {
  if (!Array.isArray(value)) {
    const hint = value === undefined ? " (did it forget to return the messages?)" : "";
    return failed(`transformContext returned ${describeValue(value)}${hint}; it must resolve to an array of messages`);
  }
  const known = checkedLength.get(value) ?? 0;
  const problem = firstEntryProblem(value, known > value.length ? 0 : known);
  if (problem !== undefined) return failed(`transformContext returned an array whose ${problem}; each entry must be ${MESSAGE_SHAPE}`);
  checkedLength.set(value, value.length);
  return passed(value as AgentMessage[]);
}

/** `entry N is …` for the first entry from `start` on that is not a message. */
function firstEntryProblem(values: readonly unknown[], start: number): string | undefined {
  for (let index = start; index < values.length; index++) {
    const problem = messageProblem(values[index]);
    if (problem !== undefined) return `entry ${index} is ${problem}`;
  }
  return undefined;
}
