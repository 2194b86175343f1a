/**
 * The `requestModel` actor: the run's model, one streamed response per request.
 *
 * transformContext → convertToLlm → API key → stream function. Emits
 * `message_start` on the stream's `start` and `message_update` for every
 * intermediate event of any kind straight to the run's sink (no transition per
 * token), then sends the chart exactly one `model.done`. Never fails: a
 * throwing hook or a stream function that breaks its contract becomes a final
 * message with stopReason `error` (or `aborted` when the signal fired).
 */
import { fromCallback } from "xstate";
import type { ModelRequestEvent, ModelStreamEvent, RequestModelInput } from "../../machines/events.js";
import { errorText } from "../../machines/tool-call.machine.js";
import type { AssistantMessage, Context, Message, Model, SimpleStreamOptions } from "../types.js";
import type { RunEnvironment } from "../run-environment.js";
import { createEmptyAssistantMessage } from "../messages.js";
import { ABORTED_MESSAGE } from "../providers/assistant-stream.js";

const LLM_ROLES = new Set(["user", "assistant", "toolResult"]);

/** A final assistant message describing a failure before or during streaming. */
export function failedResponse(model: Model, error: unknown, signal: AbortSignal | undefined): AssistantMessage {
  const aborted = signal?.aborted === true;
  return {
    ...createEmptyAssistantMessage(model),
    stopReason: aborted ? "aborted" : "error",
    errorMessage: aborted ? ABORTED_MESSAGE : errorText(error),
  };
}

/**
 * How far each array convertToLlm returned was already checked. A convertToLlm that
 * returns the live transcript (identity) hands back the same, only-growing array
 * every turn; checking just its new tail keeps a long run linear.
 */
const checkedLength = new WeakMap<unknown[], number>();

function checkLlmMessages(messages: unknown): Message[] {
  if (!Array.isArray(messages)) throw new TypeError("convertToLlm must return an array of messages");
  for (let index = checkedLength.get(messages) ?? 0; index < messages.length; index++) {
    const role = (messages[index] as { role?: unknown } | null)?.role;
    if (!LLM_ROLES.has(role as string)) {
      throw new TypeError(
        `convertToLlm returned a message with role ${JSON.stringify(role)} at index ${index}; ` +
          'map custom messages to "user", "assistant" or "toolResult" messages, or filter them out',
      );
    }
  }
  checkedLength.set(messages, messages.length);
  return messages as Message[];
}

async function openStream(env: RunEnvironment, input: RequestModelInput) {
  const { config, signal } = env;
  const transformed = config.transformContext ? await config.transformContext(input.messages, signal) : input.messages;
  const llmMessages = checkLlmMessages(await config.convertToLlm(transformed));
  const context: Context = {
    systemPrompt: input.systemPrompt,
    messages: llmMessages,
    ...(env.declaredTools ? { tools: env.declaredTools } : {}),
  };
  const apiKey = (config.getApiKey ? await config.getApiKey(input.model.provider) : undefined) || config.apiKey;
  const options: SimpleStreamOptions = {
    ...config,
    apiKey,
    signal,
    reasoning: input.thinkingLevel === "off" ? undefined : input.thinkingLevel,
  };
  return env.streamFn(input.model, context, options);
}

/** Streams one response for `input`; `sendBack` receives its one `model.done` unless `isCancelled()` says the run stopped. */
function streamResponse(env: RunEnvironment, input: RequestModelInput, sendBack: (event: ModelStreamEvent) => void, isCancelled: () => boolean) {
  let finished = false;
  let started = false;
  const finish = (message: AssistantMessage) => {
    if (finished || isCancelled()) return;
    finished = true;
    sendBack({ type: "model.done", message, started });
  };
  const run = async () => {
    const stream = await openStream(env, input);
    for await (const event of stream) {
      if (finished || isCancelled()) return;
      if (event.type === "start") {
        started = true;
        env.emit({ type: "message_start", message: { ...event.partial } });
      } else if (event.type === "done" || event.type === "error") {
        finish(await stream.result());
        return;
      } else if (started) {
        env.emit({ type: "message_update", message: { ...event.partial }, assistantMessageEvent: event });
      }
    }
    finish(await stream.result());
  };
  run().catch((error: unknown) => finish(failedResponse(input.model, error, env.signal)));
}

/** Creates the run's `requestModel` actor logic: one streamed response per `model.request`. */
export function createRequestModelActor(env: RunEnvironment) {
  return fromCallback<ModelRequestEvent>(({ sendBack, receive }) => {
    let stopped = false;
    receive((request) => {
      const { type: _type, ...input } = request;
      streamResponse(env, input, sendBack, () => stopped);
    });
    return () => {
      stopped = true;
    };
  });
}
