/**
 * What the loop does with a stream it cannot trust (issue 32, defects 10 and 11), for any
 * stream function: a tool call whose streamed arguments are not complete JSON is refused with
 * an error result naming the tool — whatever the stop reason — and its tool never runs; a
 * stream that delivers nothing for `streamIdleTimeoutMs` ends the request as an error naming
 * the provider, its URL and the wait, and the request's signal is aborted.
 */
import { describe, expect, it } from "vitest";
import { agentLoop } from "../../src/index.js";
import { EventStream } from "../../src/event-stream.js";
import { parsePartialJson } from "../../src/providers/partial-json.js";
import type { AssistantMessage, AssistantMessageEvent, Model, SimpleStreamOptions, StopReason, ToolResultMessage } from "../../src/types.js";
import { assistant, baseConfig, collect, testModel, user } from "../helpers/mock-stream.js";
import { echoTool } from "../helpers/tools.js";

const newStream = () =>
  new EventStream<AssistantMessageEvent, AssistantMessage>(
    (e) => e.type === "done" || e.type === "error",
    (e) => (e.type === "done" ? e.message : e.type === "error" ? e.error : (undefined as never)),
  );

/** A pi-style stream function: the first response streams an echo call in `pieces` and ends with `stopReason`, repairing the arguments as pi-ai does; the next answers. */
function cutCallStream(pieces: string[], stopReason: Extract<StopReason, "stop" | "toolUse">) {
  let requests = 0;
  return () => {
    const stream = newStream();
    requests += 1;
    const first = requests === 1;
    queueMicrotask(() => {
      if (!first) {
        const done = assistant({ text: "ok" });
        stream.push({ type: "start", partial: { ...done, content: [] } });
        stream.push({ type: "done", reason: "stop", message: done });
        return;
      }
      const call = { type: "toolCall" as const, id: "call_cut", name: "echo", arguments: {} };
      const partial = { ...assistant({}), content: [call] };
      stream.push({ type: "start", partial: { ...partial, content: [] } });
      stream.push({ type: "toolcall_start", contentIndex: 0, partial });
      for (const delta of pieces) stream.push({ type: "toolcall_delta", contentIndex: 0, delta, partial });
      const repaired = { ...call, arguments: parsePartialJson(pieces.join("")) };
      stream.push({ type: "toolcall_end", contentIndex: 0, toolCall: repaired, partial });
      stream.push({ type: "done", reason: stopReason, message: { ...assistant({}), content: [repaired], stopReason } });
    });
    return stream;
  };
}

describe("only whole calls run", () => {
  it.each(["toolUse", "stop"] as const)("refuses a call whose arguments were cut (stop reason %s): an error result naming the tool, nothing run", async (stopReason) => {
    const echo = echoTool();
    const run = agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [echo.tool] }, baseConfig(), undefined, cutCallStream(['{"text": "RAN-WITH-', "CUT-ARGS"], stopReason));
    const { events } = await collect(run);
    expect(echo.calls).toEqual([]);
    const end = events.find((event) => event.type === "tool_execution_end") as { isError: boolean; result: { content: { text: string }[] } } | undefined;
    expect(end?.isError).toBe(true);
    expect(end?.result.content[0]?.text).toMatch(/^Tool echo was not run: the arguments are not complete JSON \(cut off or invalid: .+\); they ended: \{"text": "RAN-WITH-CUT-ARGS\. Call echo again/u);
    const result = events.find((event) => event.type === "message_end" && (event.message as ToolResultMessage).role === "toolResult");
    expect(result).toBeDefined();
    // The transcript keeps the preview's repaired arguments and says why the call was refused.
    const asked = events.find((event) => event.type === "message_end" && (event.message as AssistantMessage).role === "assistant") as { message: AssistantMessage };
    expect(asked.message.content[0]).toMatchObject({ type: "toolCall", arguments: { text: "RAN-WITH-CUT-ARGS" }, argumentsError: expect.stringContaining("not complete JSON") });
  });

  it("runs a call whose pieces add up to complete JSON", async () => {
    const echo = echoTool();
    const run = agentLoop([user("go")], { systemPrompt: "", messages: [], tools: [echo.tool] }, baseConfig(), undefined, cutCallStream(['{"text": "who', 'le"}'], "toolUse"));
    await collect(run);
    expect(echo.calls).toHaveLength(1);
  });
});

describe("streamIdleTimeoutMs", () => {
  it("ends a stream that delivers nothing for that long as an error naming provider, URL and wait, and aborts the request's signal", async () => {
    let requestSignal: AbortSignal | undefined;
    const model: Model = { ...testModel, provider: "stalling-provider", baseUrl: "http://127.0.0.1:9/v1" };
    const stalling = (_model: Model, _context: unknown, options?: SimpleStreamOptions) => {
      requestSignal = options?.signal;
      const stream = newStream();
      const partial = assistant({});
      queueMicrotask(() => stream.push({ type: "start", partial: { ...partial, content: [] } }));
      return stream;
    };
    const run = agentLoop([user("go")], { systemPrompt: "", messages: [] }, baseConfig({ model, streamIdleTimeoutMs: 50 }), undefined, stalling as never);
    const { result, events } = await collect(run);
    const last = result.at(-1) as AssistantMessage;
    expect(last.stopReason).toBe("error");
    expect(last.errorMessage).toBe(
      "stalling-provider at http://127.0.0.1:9/v1 (model mock-1) sent nothing for 50 ms: the response stream stalled, so the request was ended (streamIdleTimeoutMs 50; CLI --idle-timeout)",
    );
    expect(events.at(-1)).toMatchObject({ type: "agent_end", exitReason: "error" });
    expect(requestSignal?.aborted).toBe(true);
  });

  it("rejects a value that is not a number of milliseconds >= 0", () => {
    expect(() => agentLoop([user("go")], { systemPrompt: "", messages: [] }, baseConfig({ streamIdleTimeoutMs: -1 }), undefined, (() => newStream()) as never)).toThrow(
      "config.streamIdleTimeoutMs must be a finite number of milliseconds >= 0 (0 waits for ever), got the number -1",
    );
  });
});
