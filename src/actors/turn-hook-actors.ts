/**
 * The named actors that run between turns: steering and follow-up polls,
 * `shouldStopAfterTurn` and `prepareNextTurn`. A hook that throws rejects its
 * actor; the chart turns that into exit reason `error` with the hook named.
 */
import { fromPromise } from "xstate";
import type { NextTurnUpdate, TurnHookInput } from "../../machines/events.js";
import type { AgentMessage, ShouldStopAfterTurnContext } from "../types.js";
import { type RunServices } from "../run-environment.js";
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

/** Creates the four between-turn actors of a run. */
export function createTurnHookActors(services: RunServices) {
  const { config } = services;
  return {
    pollSteering: fromPromise<AgentMessage[]>(() => poll(config.getSteeringMessages, "getSteeringMessages")),
    pollFollowUp: fromPromise<AgentMessage[]>(() => poll(config.getFollowUpMessages, "getFollowUpMessages")),
    checkStopAfterTurn: fromPromise<boolean, TurnHookInput>(async ({ input }) =>
      config.shouldStopAfterTurn ? Boolean(await config.shouldStopAfterTurn(turnContext(services, input))) : false,
    ),
    prepareNextTurn: fromPromise<NextTurnUpdate | undefined, TurnHookInput>(async ({ input }) => {
      if (!config.prepareNextTurn) return undefined;
      const update = await config.prepareNextTurn(
        { ...turnContext(services, input), model: input.model, thinkingLevel: input.thinkingLevel },
        services.signal,
      );
      if (!update) return undefined;
      const next: NextTurnUpdate = {};
      if (update.context) {
        services.useTools(update.context.tools);
        next.systemPrompt = update.context.systemPrompt;
        next.messages = [...update.context.messages];
        next.sequentialTools = sequentialToolNames(services);
        const toolPolicies = toolPoliciesOf(services.tools(), config.toolDefaults);
        if (toolPolicies) next.toolPolicies = toolPolicies;
      }
      if (update.model) next.model = update.model;
      if (update.thinkingLevel) next.thinkingLevel = update.thinkingLevel;
      return next;
    }),
  };
}

/** Names of the run's tools that force sequential execution. */
export function sequentialToolNames(services: RunServices): string[] {
  return (services.tools() ?? []).filter((tool) => tool.executionMode === "sequential").map((tool) => tool.name);
}
