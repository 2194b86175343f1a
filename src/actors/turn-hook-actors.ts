/**
 * The named actors that run between turns: steering and follow-up polls,
 * `shouldStopAfterTurn`, `finishTurn` and `prepareNextTurn`; and `prepareRequest`,
 * before every request. A hook that throws rejects its
 * actor; the chart turns that into exit reason `error` with the hook named.
 */
import { fromPromise } from "xstate";
import type { NextTurnUpdate, PrepareRequestInput, TurnDecision, TurnHookInput } from "../../machines/events.js";
import type { AgentLoopTurnUpdate, AgentMessage, AgentRequestUpdate, ShouldStopAfterTurnContext } from "../types.js";
import { describeValue } from "../describe-value.js";
import { type RunServices, type ServicesSource } from "../run-environment.js";
import { checkSteeringMessages } from "../check-messages.js";
import { transcriptMessages } from "../../machines/transcript.js";
import { toolPoliciesOf } from "../tool-policies.js";

function turnContext(services: RunServices, input: TurnHookInput): ShouldStopAfterTurnContext {
  return {
    message: input.message,
    toolResults: input.toolResults,
    context: { systemPrompt: input.systemPrompt, messages: transcriptMessages(input.messages), ...(services.tools() ? { tools: services.tools() } : {}) },
    newMessages: transcriptMessages(input.newMessages),
  };
}

/** Polls a steering or follow-up hook; an answer that is not messages fails the hook with a text naming it. */
async function poll(source: (() => Promise<AgentMessage[]>) | undefined, hookName: string): Promise<AgentMessage[]> {
  const checked = checkSteeringMessages(source ? await source() : [], hookName);
  if (!checked.ok) throw new TypeError(checked.error);
  return checked.value;
}

/**
 * The chart's update from what `prepareNextTurn` or `prepareRequest` returned: a new
 * context also swaps the run's tools. Anything but `undefined`/`null` or an object
 * fails the hook with a text naming it.
 */
function updateFrom(services: RunServices, update: AgentLoopTurnUpdate | AgentRequestUpdate | undefined | null | void, hookName: string): NextTurnUpdate | undefined {
  if (update === undefined || update === null) return undefined;
  if (typeof update !== "object" || Array.isArray(update)) {
    throw new TypeError(`${hookName} returned ${describeValue(update)}; expected undefined or { context?, model?, thinkingLevel? }`);
  }
  const next: NextTurnUpdate = {};
  if (update.context) {
    services.useTools(update.context.tools);
    next.systemPrompt = update.context.systemPrompt;
    next.messages = [...update.context.messages];
    next.sequentialTools = sequentialToolNames(services);
    next.approvalTools = approvalToolNames(services);
    const toolPolicies = toolPoliciesOf(services.tools(), services.config.toolDefaults);
    if (toolPolicies) next.toolPolicies = toolPolicies;
  }
  const appended = (update as AgentLoopTurnUpdate).messages;
  if (appended !== undefined) {
    const checked = checkSteeringMessages(appended, `${hookName} (its messages)`);
    if (!checked.ok) throw new TypeError(checked.error);
    if (checked.value.length > 0) next.append = checked.value;
  }
  if (update.model) next.model = update.model;
  if (update.thinkingLevel) next.thinkingLevel = update.thinkingLevel;
  return next;
}

/** What `finishTurn` returned, as the chart's decision; anything else fails the hook with a text naming it. */
function decisionFrom(returned: unknown): TurnDecision | undefined {
  if (returned === undefined || returned === null) return undefined;
  const action = typeof returned === "object" ? (returned as { action?: unknown }).action : undefined;
  if (action === "end" || action === "continue") return action;
  throw new TypeError(`finishTurn returned ${describeValue(returned)}; expected undefined, { action: "end" } or { action: "continue" }`);
}

/** Creates the between-turn and before-request hook actors of a run. */
export function createTurnHookActors(servicesOf: ServicesSource) {
  return {
    pollSteering: fromPromise<AgentMessage[]>(({ system }) => poll(servicesOf(system).config.getSteeringMessages, "getSteeringMessages")),
    pollFollowUp: fromPromise<AgentMessage[]>(({ system }) => poll(servicesOf(system).config.getFollowUpMessages, "getFollowUpMessages")),
    checkStopAfterTurn: fromPromise<boolean, TurnHookInput>(async ({ input, system }) => {
      const services = servicesOf(system);
      const hook = services.config.shouldStopAfterTurn;
      return hook ? Boolean(await hook(turnContext(services, input))) : false;
    }),
    prepareNextTurn: fromPromise<NextTurnUpdate | undefined, TurnHookInput>(async ({ input, system }) => {
      const services = servicesOf(system);
      const hook = services.config.prepareNextTurn;
      if (!hook) return undefined;
      const update = await hook({ ...turnContext(services, input), model: input.model, thinkingLevel: input.thinkingLevel }, services.signal);
      return updateFrom(services, update, "prepareNextTurn");
    }),
    finishTurn: fromPromise<TurnDecision | undefined, TurnHookInput>(async ({ input, system }) => {
      const services = servicesOf(system);
      const hook = services.config.finishTurn;
      return hook ? decisionFrom(await hook(turnContext(services, input), services.signal)) : undefined;
    }),
    prepareRequest: fromPromise<NextTurnUpdate | undefined, PrepareRequestInput>(async ({ input, system }) => {
      const services = servicesOf(system);
      const hook = services.config.prepareRequest;
      if (!hook) return undefined;
      const tools = services.tools();
      const update = await hook(
        {
          context: { systemPrompt: input.systemPrompt, messages: transcriptMessages(input.messages), ...(tools ? { tools } : {}) },
          model: input.model,
          thinkingLevel: input.thinkingLevel,
        },
        services.signal,
      );
      return updateFrom(services, update, "prepareRequest");
    }),
  };
}

/** Names of the run's tools whose calls may wait for approval (`needsApproval` is `true` or a function). */
export function approvalToolNames(services: RunServices): string[] {
  return (services.tools() ?? []).filter((tool) => tool.needsApproval !== undefined && tool.needsApproval !== false).map((tool) => tool.name);
}

/** Names of the run's tools that force sequential execution. */
export function sequentialToolNames(services: RunServices): string[] {
  return (services.tools() ?? []).filter((tool) => tool.executionMode === "sequential").map((tool) => tool.name);
}
