/**
 * A scripted, in-process stream function: no I/O, every event pushed on its own
 * microtask, like pi-ai's providers and pi's own loop tests. Both engines get
 * streams made by pi-ai's `createAssistantMessageEventStream`, so the stream's
 * own cost is identical on both sides.
 */
import { createAssistantMessageEventStream } from "@mariozechner/pi-ai";
import type { AssistantMessage, AssistantMessageEvent, Model, StreamFn, TextContent, ToolCall, Usage } from "../src/types.js";
import type { Workload } from "./workloads.js";

/** The name of the one tool every scripted call targets. */
export const SCRIPTED_TOOL_NAME = "echo";

/** A text chunk of one `text_delta`. */
const TEXT_CHUNK = "lorem ";

/** The model every run reports; the scripted stream ignores it. */
export const SCRIPTED_MODEL: Model = {
  id: "scripted",
  name: "Scripted",
  api: "scripted",
  provider: "scripted",
  baseUrl: "",
  reasoning: false,
  input: ["text"],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 1_000_000,
  maxTokens: 100_000,
};

function zeroUsage(): Usage {
  return {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 0,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
}

/**
 * Yields the events of one assistant response. Like a real provider it mutates
 * one `partial` message and hands the same object out with every event.
 */
function* scriptResponse(turn: number, workload: Workload, withTools: boolean): Generator<AssistantMessageEvent> {
  const output: AssistantMessage = {
    role: "assistant",
    content: [],
    api: SCRIPTED_MODEL.api,
    provider: SCRIPTED_MODEL.provider,
    model: SCRIPTED_MODEL.id,
    usage: zeroUsage(),
    stopReason: "stop",
    timestamp: Date.now(),
  };
  yield { type: "start", partial: output };

  const text: TextContent = { type: "text", text: "" };
  output.content.push(text);
  yield { type: "text_start", contentIndex: 0, partial: output };
  for (let i = 0; i < workload.textDeltas; i += 1) {
    text.text += TEXT_CHUNK;
    yield { type: "text_delta", contentIndex: 0, delta: TEXT_CHUNK, partial: output };
  }
  yield { type: "text_end", contentIndex: 0, content: text.text, partial: output };

  if (withTools) {
    for (let call = 0; call < workload.callsPerTurn; call += 1) {
      const contentIndex = output.content.length;
      const toolCall: ToolCall = { type: "toolCall", id: `call_${turn}_${call}`, name: SCRIPTED_TOOL_NAME, arguments: {} };
      output.content.push(toolCall);
      yield { type: "toolcall_start", contentIndex, partial: output };
      const args = { n: call, note: "bench" };
      yield { type: "toolcall_delta", contentIndex, delta: JSON.stringify(args), partial: output };
      toolCall.arguments = args;
      yield { type: "toolcall_end", contentIndex, toolCall, partial: output };
    }
    output.stopReason = "toolUse";
    yield { type: "done", reason: "toolUse", message: output };
  } else {
    yield { type: "done", reason: "stop", message: output };
  }
}

/**
 * Makes the stream function of one run: responses 0..toolTurns-1 call tools,
 * the next one answers with text only. Make a fresh one per run (it counts requests).
 */
export function createScriptedStreamFn(workload: Workload): StreamFn {
  let requests = 0;
  return () => {
    const turn = requests;
    requests += 1;
    const stream = createAssistantMessageEventStream();
    const events = scriptResponse(turn, workload, turn < workload.toolTurns);
    const pushNext = (): void => {
      const next = events.next();
      if (next.done) return;
      // pi-ai's event type is structurally the same as loopchart's.
      stream.push(next.value as Parameters<typeof stream.push>[0]);
      queueMicrotask(pushNext);
    };
    queueMicrotask(pushNext);
    return stream;
  };
}
