/**
 * The `invalidCallHint` actor of a run: the steering message the invalid-call
 * breaker sends once (`onInvalidCallLimit: "hint"`). It names the error and the
 * tool's parameter schema as the model was shown it, or, for a tool that does not
 * exist, the tools there are. Never rejects.
 */
import { fromPromise } from "xstate";
import type { InvalidCallHintInput } from "../../machines/loop-policies.js";
import type { AgentMessage } from "../types.js";
import type { RunServices, ServicesSource } from "../run-environment.js";

/** The hint's text for `input`, with the current tool declarations of the run. */
export function invalidCallHintText(services: RunServices, input: InvalidCallHintInput): string {
  const declared = services.declaredTools() ?? [];
  const tool = declared.find((candidate) => candidate.name === input.toolName);
  const head = `Your last ${input.count} calls to "${input.toolName}" failed the same way, with the same arguments:\n${input.error}\n\n`;
  const help = tool
    ? `The parameters of "${input.toolName}" (JSON Schema):\n${JSON.stringify(tool.parameters, null, 2)}\n\nCall it with arguments that match this schema, or answer without it.`
    : `There is no tool "${input.toolName}". The tools you can call: ${declared.length > 0 ? declared.map((candidate) => candidate.name).join(", ") : "none"}.`;
  return `${head}${help} If the same call fails once more, the run stops.`;
}

/** Creates the `invalidCallHint` actor of a run. */
export function createInvalidCallHintActor(servicesOf: ServicesSource) {
  return fromPromise<AgentMessage, InvalidCallHintInput>(async ({ input, system }) => ({
    role: "user",
    content: invalidCallHintText(servicesOf(system), input),
    timestamp: Date.now(),
  }));
}
