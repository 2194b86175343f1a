/**
 * The `requestModel` actor: the model request of one turn, invoked by the loop's
 * `requesting` state with the transcript as input.
 *
 * transformContext → convertToLlm → API key → stream function. Emits
 * `message_start` on the stream's `start` and `message_update` for every
 * intermediate event of any kind (the actor's own `emit`: no transition per
 * token), then sends the loop exactly one `model.done`. Never fails: a throwing
 * hook or a stream function that breaks its contract becomes a final message with
 * stopReason `error` (or `aborted` when the signal fired). Stopping the actor
 * (the loop left `requesting`) stops reading the stream; told `run.abandon` (a
 * grace period after an abort the stream ignored) it answers with an aborted response. A restored snapshot in
 * `requesting` invokes it again: the turn is requested anew.
 */
import { fromCallback } from "xstate";
import type { AgentLoopEvent, ModelStreamEvent, RequestModelInput } from "../../machines/events.js";
import { errorText } from "../../machines/tool-call.machine.js";
import type { AgentEvent, AgentLoopConfig, AssistantMessage, Context, Message, Model, SimpleStreamOptions, ThinkingLevel as AgentThinkingLevel } from "../types.js";
import type { RunServices, ServicesSource } from "../run-environment.js";
import { failedResponse } from "../messages.js";
import { passed } from "../checked.js";
import { transcriptMessages } from "../../machines/transcript.js";
import { REQUEST_ABORTED_MESSAGE } from "../providers/assistant-stream.js";
import { finalResponse, invalidEndResponse } from "../providers/check-stream-event.js";
import { checkTransformedContext } from "../check-messages.js";
import { createWholeArgumentsCheck } from "../providers/whole-arguments.js";

const LLM_ROLES = new Set(["user", "assistant", "toolResult"]);

/**
 * How far each array convertToLlm returned was already checked. A convertToLlm that
 * returns the transcript it was given hands back a longer array every turn;
 * checking just its new tail keeps a long run linear.
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

/** The CLI's default `streamIdleTimeoutMs`: two minutes without a stream event end the request. */
export const STREAM_IDLE_TIMEOUT_MS = 120_000;

/** `1.5 s`, `500 ms`: a wait as the idle error states it. */
function formatWait(ms: number): string {
  return ms >= 1000 ? `${Number((ms / 1000).toFixed(1))} s` : `${ms} ms`;
}

/** The error of a request whose stream delivered nothing for `ms`: names the provider, its URL and the wait. */
export function streamIdleMessage(model: Pick<Model, "provider" | "baseUrl" | "id">, ms: number): string {
  const where = model.baseUrl ? ` at ${model.baseUrl}` : "";
  return `${model.provider}${where} (model ${model.id}) sent nothing for ${formatWait(ms)}: the response stream stalled, so the request was ended (streamIdleTimeoutMs ${ms}; CLI --idle-timeout)`;
}

/** A controller for one request: aborted by the run's signal, or by the request itself (idle timeout). */
function requestController(runSignal: AbortSignal | undefined): { controller: AbortController; release: () => void } {
  const controller = new AbortController();
  if (!runSignal) return { controller, release: () => undefined };
  if (runSignal.aborted) controller.abort(runSignal.reason);
  const forward = () => controller.abort(runSignal.reason);
  runSignal.addEventListener("abort", forward, { once: true });
  return { controller, release: () => runSignal.removeEventListener("abort", forward) };
}

/**
 * A new options object with `config`'s own enumerable properties, as `{ ...config }`
 * makes it, for the request's own to be set on. Not `{ ...config, apiKey, … }`:
 * V8 adds properties to a spread copy of an object literal on a slow path (~2 µs a
 * request); `Object.assign` onto `{}` is ~30 ns. The one key it would treat
 * differently (`__proto__`, which it sets as the prototype) takes the spread.
 */
function streamOptions(config: AgentLoopConfig): SimpleStreamOptions {
  if (Object.hasOwn(config, "__proto__")) return { ...config };
  return Object.assign({}, config) as SimpleStreamOptions;
}

async function openStream(services: RunServices, input: RequestModelInput, requestSignal: AbortSignal | undefined, beforeRequest: () => void) {
  const { config } = services;
  const signal = services.signal;
  const messages = transcriptMessages(input.messages);
  const transformed = config.transformContext ? checkTransformedContext(await config.transformContext(messages, signal)) : passed(messages);
  if (!transformed.ok) throw new TypeError(transformed.error);
  const llmMessages = checkLlmMessages(await config.convertToLlm(transformed.value));
  // The wrap-up request declares no tools.
  const tools = input.withoutTools ? undefined : services.declaredTools();
  const context: Context = { systemPrompt: input.systemPrompt, messages: llmMessages, ...(tools ? { tools } : {}) };
  const apiKey = (config.getApiKey ? await config.getApiKey(input.model.provider) : undefined) || config.apiKey;
  const options = streamOptions(config);
  options.apiKey = apiKey;
  options.signal = requestSignal;
  options.reasoning = streamReasoning(input.thinkingLevel);
  options.thinkingLevel = input.thinkingLevel;
  // An abort that came first (even before the run started) means no request at all.
  if (signal?.aborted === true) throw new Error(REQUEST_ABORTED_MESSAGE);
  beforeRequest();
  return services.streamFn(input.model, context, options);
}

/** The `reasoning` option for a level: none for `"off"`, and pi-ai 0.73's highest, `"xhigh"`, for pi 1.x's `"max"`. */
export function streamReasoning(level: AgentThinkingLevel): SimpleStreamOptions["reasoning"] {
  if (level === "off") return undefined;
  return level === "max" ? "xhigh" : level;
}

/** What `nextMacrotask` resolves with: the stream's `result()` had not settled by then. */
const NO_RESULT: unique symbol = Symbol("no result");

/** The error text of a response whose stream ended its iteration with no result to give. */
export const STREAM_ENDED_WITHOUT_RESULT =
  "the stream function's stream ended without a done or error event, and its result() did not resolve";

function nextMacrotask(): Promise<typeof NO_RESULT> {
  return new Promise((resolve) => setImmediate(() => resolve(NO_RESULT)));
}

/** Creates the `requestModel` actor logic of a run. */
export function createRequestModelActor(servicesOf: ServicesSource) {
  return fromCallback<AgentLoopEvent, RequestModelInput, AgentEvent>(({ input, sendBack, receive, emit, system }) => {
    const services = servicesOf(system);
    let finished = false;
    let started = false;
    // No silent stall: a stream that delivers nothing for streamIdleTimeoutMs ends the request as an error.
    const idleMs = services.config.streamIdleTimeoutMs ?? 0;
    const request = idleMs > 0 ? requestController(services.signal) : undefined;
    let idleTimer: ReturnType<typeof setTimeout> | undefined;
    const stopIdle = () => {
      if (idleTimer !== undefined) clearTimeout(idleTimer);
      idleTimer = undefined;
      request?.release();
    };
    const finish = (message: AssistantMessage) => {
      if (finished) return;
      finished = true;
      stopIdle();
      sendBack({ type: "model.done", message, started } satisfies ModelStreamEvent);
    };
    const rearmIdle = () => {
      if (!request || finished) return;
      if (idleTimer !== undefined) clearTimeout(idleTimer);
      idleTimer = setTimeout(() => {
        const errorMessage = streamIdleMessage(input.model, idleMs);
        finish(invalidEndResponse({ partial, errorMessage, model: input.model }));
        request.controller.abort(new Error(errorMessage));
      }, idleMs);
    };
    const fail = (error: unknown) => {
      const aborted = services.signal?.aborted === true;
      finish(failedResponse(input.model, aborted ? REQUEST_ABORTED_MESSAGE : errorText(error), aborted ? "aborted" : "error"));
    };
    let partial: AssistantMessage | undefined;
    // The final event's message, checked (tool-call ids repaired); an invalid one ends the turn as an error keeping what streamed.
    // Calls whose streamed arguments are not complete JSON are marked here and refused on the tool path.
    const wholeArguments = createWholeArgumentsCheck();
    const end = (value: unknown, eventType: "done" | "error") =>
      finish(wholeArguments.mark(finalResponse({ value, eventType, partial, model: input.model, assignToolCallId: (index) => `call_${input.turn}_${index + 1}` })));
    const run = async () => {
      const stream = await openStream(services, input, request ? request.controller.signal : services.signal, rearmIdle);
      for await (const event of stream) {
        if (finished) return;
        rearmIdle();
        // The type read once: events of many shapes make every read of it a slow (megamorphic) one.
        const { type } = event;
        if (type === "done") return end(event.message, "done");
        if (type === "error") return end(event.error, "error");
        if (typeof event.partial === "object" && event.partial !== null) partial = event.partial;
        if (type === "toolcall_start" || type === "toolcall_delta") wholeArguments.observe(event);
        if (type === "start") {
          started = true;
          emit({ type: "message_start", message: { ...event.partial } });
        } else if (started) {
          emit({ type: "message_update", message: { ...event.partial }, assistantMessageEvent: event });
        }
      }
      if (finished) return;
      // The iteration ended without a done/error event: a stream that keeps its contract has its result by now.
      const result = await Promise.race([stream.result(), nextMacrotask()]);
      if (result === NO_RESULT) {
        finish(invalidEndResponse({ partial, errorMessage: STREAM_ENDED_WITHOUT_RESULT, model: input.model }));
        return;
      }
      end(result, "done");
    };
    run().catch(fail);
    // The loop gave up waiting on a stream that ignored the abort: answer for it.
    receive((event) => {
      if (event.type === "run.abandon") finish(failedResponse(input.model, REQUEST_ABORTED_MESSAGE, "aborted"));
    });
    return () => {
      finished = true;
      stopIdle();
    };
  });
}
