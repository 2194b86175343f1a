/**
 * The scripted model: an offline, deterministic {@link StreamFn} that plays a
 * {@link Script} of assistant responses as a realistic event stream.
 */
import type {
  Api,
  AssistantMessage,
  Context,
  Model,
  SimpleStreamOptions,
  StreamFn,
  TextContent,
  ThinkingContent,
  ToolCall,
} from "../llm-types.js";
import {
  REQUEST_ABORTED_MESSAGE,
  applyModelCost,
  createAssistantMessageEventStream,
  createEmptyAssistantMessage,
  failAssistantStream,
  type PushableAssistantMessageEventStream,
} from "./assistant-stream.js";
import { parsePartialJson } from "./partial-json.js";
import { createScriptPlayer } from "./script-player.js";
import type { Script, ScriptedContentBlock, ScriptedResponse } from "./script-schema.js";

/** Characters per streamed text or thinking chunk (cut at the next word boundary). */
export const SCRIPTED_TEXT_CHUNK_CHARS = 16;
/** Characters per streamed chunk of tool-call arguments JSON. */
export const SCRIPTED_ARGUMENTS_CHUNK_CHARS = 12;
/** Characters per token when the scripted model estimates usage. */
export const SCRIPTED_CHARS_PER_TOKEN = 4;
/** Context window and output limit the scripted model advertises. */
export const SCRIPTED_CONTEXT_WINDOW = 128_000;
export const SCRIPTED_MAX_TOKENS = 16_384;

/** Options of {@link createScriptedModel}. */
export interface ScriptedModelOptions {
  /**
   * Pause before each streamed chunk, in milliseconds, for responses without their
   * own `delayMs`. Default 0 (chunks still arrive one microtask apart).
   * @example { delayMs: 30 } // text appears word by word in a terminal
   */
  delayMs?: number;
}

/** A scripted model and the stream function that plays it. */
export interface ScriptedModel {
  /** provider `"scripted"`, api `"scripted"`, id = the script's name, zero cost. */
  model: Model;
  /**
   * Plays the next response for each request. Never throws: a script that has run
   * out answers with an `error` message saying so; an aborted signal ends the
   * stream with stopReason `aborted`. State (which responses played) lives in
   * this function, so create one scripted model per run.
   */
  streamFn: StreamFn;
}

/**
 * Creates a scripted model over `script` (validate file scripts with `loadScript`).
 *
 * Each response streams as `start`, then per block `text_start`/`text_delta`s/`text_end`,
 * `thinking_*` likewise, or `toolcall_start`, the arguments JSON in `toolcall_delta`
 * pieces (the partial message's `arguments` is the best-effort parse so far) and
 * `toolcall_end` with the parsed call; finally `done`, or `error` for `error`/`aborted`
 * stop reasons. Usage counts come from the response's `usage` or are estimated from
 * characters.
 */
export function createScriptedModel(script: Script, options: ScriptedModelOptions = {}): ScriptedModel {
  const name = script.name ?? "script";
  const model: Model = {
    id: name,
    name: `Scripted: ${name}`,
    api: "scripted",
    provider: "scripted",
    baseUrl: "",
    reasoning: true,
    input: ["text", "image"],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: SCRIPTED_CONTEXT_WINDOW,
    maxTokens: SCRIPTED_MAX_TOKENS,
  };
  const player = createScriptPlayer(script);
  let caughtUp = false;
  const streamFn: StreamFn = (requestModel, context, streamOptions) => {
    if (!caughtUp) {
      caughtUp = true;
      catchUp(player, context);
    }
    const stream = createAssistantMessageEventStream();
    const message = createEmptyAssistantMessage(requestModel);
    if (streamOptions?.signal?.aborted) {
      failAssistantStream(stream, message, "aborted", REQUEST_ABORTED_MESSAGE);
      return stream;
    }
    const picked = player.next(context);
    if ("exhausted" in picked) {
      failAssistantStream(stream, message, "error", picked.exhausted);
      return stream;
    }
    const delayMs = picked.response.delayMs ?? options.delayMs ?? 0;
    void playResponse({ stream, message, model: requestModel, context, response: picked.response, index: picked.index, delayMs, options: streamOptions }).catch(
      (error: unknown) => failAssistantStream(stream, message, "error", `Scripted model failed: ${String(error)}`),
    );
    return stream;
  };
  return { model, streamFn };
}

/**
 * A model first asked in the middle of a conversation (a resumed session) picks as
 * if it had answered the transcript's earlier requests: each earlier assistant
 * message marks the response the player would have chosen for it as played.
 */
function catchUp(player: ReturnType<typeof createScriptPlayer>, context: Parameters<StreamFn>[1]): void {
  context.messages.forEach((message, index) => {
    if (message.role === "assistant") player.next({ ...context, messages: context.messages.slice(0, index) });
  });
}

interface Playback {
  stream: PushableAssistantMessageEventStream;
  message: AssistantMessage;
  model: Model<Api>;
  context: Context;
  response: ScriptedResponse;
  index: number;
  delayMs: number;
  options: SimpleStreamOptions | undefined;
}

/** Thrown inside playback when the signal fires; turned into an `aborted` message. */
class PlaybackAborted extends Error {
  override readonly name = "PlaybackAborted" as const;
}

async function playResponse(playback: Playback): Promise<void> {
  const { stream, message, response } = playback;
  const signal = playback.options?.signal;
  try {
    await pause(playback.delayMs, signal);
    stream.push({ type: "start", partial: message });
    for (const [blockIndex, block] of response.content.entries()) {
      await playBlock(playback, block, blockIndex);
    }
  } catch (error) {
    if (!(error instanceof PlaybackAborted)) throw error;
    finishUsage(playback);
    failAssistantStream(stream, message, "aborted", REQUEST_ABORTED_MESSAGE);
    return;
  }
  finishUsage(playback);
  const hasToolCalls = response.content.some((block) => block.type === "toolCall");
  const stopReason = response.stopReason ?? (hasToolCalls ? "toolUse" : "stop");
  if (stopReason === "error" || stopReason === "aborted") {
    const fallback = stopReason === "error" ? "Scripted error response" : REQUEST_ABORTED_MESSAGE;
    failAssistantStream(stream, message, stopReason, response.errorMessage ?? fallback);
    return;
  }
  message.stopReason = stopReason;
  stream.push({ type: "done", reason: stopReason, message });
}

/** Streams a text or thinking block: `*_start`, one `*_delta` per chunk, `*_end`. */
async function playProse(playback: Playback, kind: "text" | "thinking", prose: string, contentIndex: number): Promise<void> {
  const { stream, message, delayMs } = playback;
  const signal = playback.options?.signal;
  let sofar = "";
  const target: TextContent | ThinkingContent = kind === "text" ? { type: "text", text: "" } : { type: "thinking", thinking: "" };
  const update = () => {
    if (target.type === "text") target.text = sofar;
    else target.thinking = sofar;
  };
  message.content.push(target);
  stream.push({ type: `${kind}_start`, contentIndex, partial: message });
  for (const chunk of splitText(prose)) {
    await pause(delayMs, signal);
    sofar += chunk;
    update();
    stream.push({ type: `${kind}_delta`, contentIndex, delta: chunk, partial: message });
  }
  stream.push({ type: `${kind}_end`, contentIndex, content: sofar, partial: message });
}

async function playBlock(playback: Playback, block: ScriptedContentBlock, blockIndex: number): Promise<void> {
  const { stream, message, delayMs } = playback;
  const signal = playback.options?.signal;
  const contentIndex = message.content.length;
  switch (block.type) {
    case "text":
      return playProse(playback, "text", block.text, contentIndex);
    case "thinking":
      return playProse(playback, "thinking", block.thinking, contentIndex);
    case "toolCall": {
      const id = block.id ?? `call_${playback.index + 1}_${blockIndex + 1}`;
      const target: ToolCall = { type: "toolCall", id, name: block.name, arguments: {} };
      message.content.push(target);
      stream.push({ type: "toolcall_start", contentIndex, partial: message });
      const raw = typeof block.arguments === "string" ? block.arguments : JSON.stringify(block.arguments);
      let soFar = "";
      for (let start = 0; start < raw.length; start += SCRIPTED_ARGUMENTS_CHUNK_CHARS) {
        await pause(delayMs, signal);
        const chunk = raw.slice(start, start + SCRIPTED_ARGUMENTS_CHUNK_CHARS);
        soFar += chunk;
        target.arguments = parsePartialJson(soFar);
        stream.push({ type: "toolcall_delta", contentIndex, delta: chunk, partial: message });
      }
      target.arguments = typeof block.arguments === "string" ? parsePartialJson(raw) : structuredClone(block.arguments);
      stream.push({ type: "toolcall_end", contentIndex, toolCall: target, partial: message });
      return;
    }
    default: {
      const unreachable: never = block;
      throw new Error(`Unknown scripted block: ${JSON.stringify(unreachable)}`);
    }
  }
}

/** Splits text into chunks of about {@link SCRIPTED_TEXT_CHUNK_CHARS}, ending at word boundaries. */
export function splitText(text: string): string[] {
  const chunks: string[] = [];
  let current = "";
  for (const word of text.match(/\s*\S+\s*|\s+/gu) ?? []) {
    current += word;
    if (current.length >= SCRIPTED_TEXT_CHUNK_CHARS) {
      chunks.push(current);
      current = "";
    }
  }
  if (current) chunks.push(current);
  return chunks;
}

/** Fills usage from the response's figures or from character estimates. */
function finishUsage(playback: Playback): void {
  const { message, response, context, model } = playback;
  const given = response.usage ?? {};
  const estimate = (chars: number): number => Math.ceil(chars / SCRIPTED_CHARS_PER_TOKEN);
  const usage = message.usage;
  usage.input = given.input ?? estimate(contextChars(context));
  usage.output = given.output ?? estimate(JSON.stringify(message.content).length);
  usage.cacheRead = given.cacheRead ?? 0;
  usage.cacheWrite = given.cacheWrite ?? 0;
  usage.totalTokens = usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
  applyModelCost(model, usage);
}

function contextChars(context: Context): number {
  return (context.systemPrompt?.length ?? 0) + JSON.stringify(context.messages).length + JSON.stringify(context.tools ?? []).length;
}

/** Waits `ms` (or one microtask when 0); throws {@link PlaybackAborted} if the signal fires first. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.reject(new PlaybackAborted());
  if (ms <= 0) {
    return Promise.resolve().then(() => {
      if (signal?.aborted) throw new PlaybackAborted();
    });
  }
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new PlaybackAborted());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
