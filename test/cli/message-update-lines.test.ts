/**
 * Issue 13 item 11: a long streamed answer costs its length in a trace and on
 * `--json`, not its length times its deltas, and a reader still gets every event
 * back exactly as the run emitted it.
 */
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Type } from "typebox";
import { agentLoop } from "../../src/agent-loop.js";
import { createJsonRenderer } from "../../src/cli/json-renderer.js";
import { createMessageUpdateCompactor, createMessageUpdateRestorer } from "../../src/cli/message-update-lines.js";
import { createRedactor } from "../../src/cli/redact.js";
import { parseTrace } from "../../src/cli/trace-reader.js";
import { TraceWriter } from "../../src/cli/trace-writer.js";
import { createScriptedModel } from "../../src/providers/scripted.js";
import { createAssistantMessageEventStream, createEmptyAssistantMessage } from "../../src/providers/assistant-stream.js";
import { growingAnswerStreamFn } from "../support/growing-answer.js";
import type { AgentEvent, AgentTool, StreamFn } from "../../src/types.js";
import { tempDir } from "../support/temp-dir.js";

const convertToLlm = (messages: unknown[]) => messages as never;

/** Every event of a run, each copied as JSON when it was emitted (providers mutate the partial in place later). */
async function record(streamFn: StreamFn, model: Parameters<typeof agentLoop>[2]["model"], tools: AgentTool[] = []): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  const run = agentLoop([{ role: "user", content: "go", timestamp: 0 }], { systemPrompt: "", messages: [], tools }, { model, convertToLlm, maxTurns: 3 }, undefined, streamFn);
  for await (const event of run) events.push(JSON.parse(JSON.stringify(event)) as AgentEvent);
  return events;
}

async function throughTrace(events: AgentEvent[]): Promise<{ text: string; restored: AgentEvent[] }> {
  const path = join(await tempDir("loopchart-updates-"), "run.jsonl");
  const writer = await TraceWriter.open({ path, redactor: createRedactor(), header: { startedAt: "", model: "m/x", cwd: "/", argv: [] } });
  events.forEach((event, index) => writer.write(event, index));
  await writer.close({ exitCode: 0 });
  const text = await readFile(path, "utf8");
  return { text, restored: parseTrace(text).events.map((line) => line.event) };
}

/** The run's events as a reader expects them back: every message_update with `partial` equal to its `message`. */
const withPartials = (events: AgentEvent[]) =>
  events.map((event) => (event.type === "message_update" ? { ...event, assistantMessageEvent: { ...event.assistantMessageEvent, partial: event.message } } : event));

const echo: AgentTool = {
  name: "echo",
  label: "echo",
  description: "echo",
  parameters: Type.Object({ text: Type.String() }),
  execute: async (_id, args) => ({ content: [{ type: "text", text: (args as { text: string }).text }], details: {} }),
};

describe("message_update lines", () => {
  it("round-trips a scripted run with thinking, text and a tool call exactly, leaving the message out of its deltas", async () => {
    const scripted = createScriptedModel({
      responses: [
        {
          content: [
            { type: "thinking", thinking: "Let me think about this for a good while before answering." },
            { type: "text", text: "I will echo something long enough to need several deltas." },
            { type: "toolCall", name: "echo", arguments: { text: "a fairly long argument that streams in pieces" } },
          ],
        },
        { content: [{ type: "text", text: "Done: the tool echoed what it was given, word for word." }] },
      ],
    }, { delayMs: 1 }); // chunks a timer apart, as from a network: the loop reads each before the next arrives
    const events = await record(scripted.streamFn, scripted.model, [echo]);
    const { text, restored } = await throughTrace(events);
    expect(restored).toEqual(withPartials(events));
    const lines = text.trimEnd().split("\n").slice(1, -1).map((line) => JSON.parse(line) as { event: AgentEvent & { message?: unknown } });
    const deltas = lines.filter((line) => line.event.type === "message_update" && /_delta$/.test((line.event as { assistantMessageEvent: { type: string } }).assistantMessageEvent.type));
    const textDeltas = deltas.filter((line) => (line.event as { assistantMessageEvent: { type: string } }).assistantMessageEvent.type !== "toolcall_delta");
    expect(textDeltas.length).toBeGreaterThan(4);
    expect(textDeltas.every((line) => line.event.message === undefined)).toBe(true);
    expect(text).not.toContain('"partial"');
  });

  it("writes the message again whenever a reader could not rebuild it (a provider changing usage or an earlier block in place)", async () => {
    const model = createScriptedModel({ responses: [{ content: [{ type: "text", text: "x" }] }] }).model;
    const streamFn: StreamFn = () => {
      const stream = createAssistantMessageEventStream();
      const partial = createEmptyAssistantMessage(model);
      void (async () => {
        await Promise.resolve();
        stream.push({ type: "start", partial });
        const first = { type: "text" as const, text: "" };
        partial.content.push(first);
        stream.push({ type: "text_start", contentIndex: 0, partial });
        first.text += "ab";
        stream.push({ type: "text_delta", contentIndex: 0, delta: "ab", partial });
        partial.usage.output = 7; // in place, between deltas
        first.text += "cd";
        stream.push({ type: "text_delta", contentIndex: 0, delta: "cd", partial });
        first.text = "REWRITTEN"; // an earlier text changed, not by a delta
        stream.push({ type: "text_delta", contentIndex: 0, delta: "EN", partial });
        stream.push({ type: "text_end", contentIndex: 0, content: first.text, partial });
        stream.push({ type: "done", reason: "stop", message: partial });
      })();
      return stream;
    };
    const events = await record(streamFn, model);
    const { restored } = await throughTrace(events);
    expect(restored).toEqual(withPartials(events));
  });

  it("costs a streamed answer a few times its length, not its length times its deltas (trace and --json)", async () => {
    const chunk = "y".repeat(10_000);
    const deltas = 100;
    const model = createScriptedModel({ responses: [{ content: [{ type: "text", text: "x" }] }] }).model;
    const streamFn = growingAnswerStreamFn(model, chunk, deltas);
    const events = await record(streamFn, model);
    const answer = chunk.length * deltas;
    const path = join(await tempDir("loopchart-updates-"), "run.jsonl");
    const writer = await TraceWriter.open({ path, redactor: createRedactor(), header: { startedAt: "", model: "m/x", cwd: "/", argv: [] } });
    let json = "";
    const renderer = createJsonRenderer({ out: { write: (line: string) => (json += line) }, err: { write: () => true }, redactor: createRedactor() });
    for (const event of events) {
      writer.write(event, 0);
      renderer.render(event, 0);
    }
    await writer.close({ exitCode: 0 });
    // The answer itself, then message_end, turn_end and agent_end each carry the final message once.
    expect((await stat(path)).size).toBeLessThan(5 * answer);
    expect(json.length).toBeLessThan(5 * answer);
    // --json lines are the trace's lines: a reader restores them the same way.
    const restore = createMessageUpdateRestorer();
    expect(json.trimEnd().split("\n").map((line) => restore(JSON.parse(line) as AgentEvent))).toEqual(withPartials(events));
  });

  it("round-trips exactly what a consumer that reads behind the stream saw (the partial is live)", async () => {
    const scripted = createScriptedModel({ responses: [{ content: [{ type: "text", text: "chunks pushed a microtask apart reach the loop after later ones landed" }] }] });
    const events = await record(scripted.streamFn, scripted.model);
    const { restored } = await throughTrace(events);
    expect(restored).toEqual(withPartials(events));
  });

  it("gives each event the message as it was when the provider pushed it, so a burst read late still compacts (issue 29 item 11)", async () => {
    const scripted = createScriptedModel({
      responses: [
        {
          content: [
            { type: "thinking", thinking: "Let me think about this for a good while before answering." },
            { type: "text", text: "I will echo something long enough to need several deltas." },
            { type: "toolCall", name: "echo", arguments: { text: "a fairly long argument that streams in pieces" } },
          ],
        },
        { content: [{ type: "text", text: "Done: the tool echoed what it was given, word for word." }] },
      ],
    }); // no delay: every chunk is pushed before the loop reads the first
    const events = await record(scripted.streamFn, scripted.model, [echo]);
    let sofar = "";
    for (const event of events) {
      if (event.type !== "message_update") continue;
      const update = event.assistantMessageEvent;
      if (update.type === "text_start" || update.type === "thinking_start") sofar = "";
      if (update.type !== "text_delta" && update.type !== "thinking_delta") continue;
      sofar += update.delta;
      // The block's text at this event is the deltas so far, not what later chunks added; no later block yet.
      const block = event.message.role === "assistant" ? event.message.content[update.contentIndex] : undefined;
      expect(block && (block.type === "text" ? block.text : block.type === "thinking" ? block.thinking : undefined)).toBe(sofar);
      expect(event.message.role === "assistant" && event.message.content.length).toBe(update.contentIndex + 1);
    }
    const { text, restored } = await throughTrace(events);
    expect(restored).toEqual(withPartials(events));
    const updates = text.trimEnd().split("\n").slice(1, -1).map((line) => (JSON.parse(line) as { event: AgentEvent & { message?: unknown } }).event)
      .filter((event): event is Extract<AgentEvent, { type: "message_update" }> => event.type === "message_update");
    const compactable = updates.filter((event) => ["text_delta", "thinking_delta", "text_end", "thinking_end", "toolcall_end"].includes(event.assistantMessageEvent.type));
    expect(compactable.length).toBeGreaterThan(6);
    expect(compactable.filter((event) => event.message !== undefined)).toEqual([]);
  });

  it("snapshots the partial of each pushed event: later in-place growth does not show in events already pushed", async () => {
    const stream = createAssistantMessageEventStream();
    const partial = createEmptyAssistantMessage(createScriptedModel({ responses: [{ content: [] }] }).model);
    const block = { type: "text" as const, text: "" };
    partial.content.push(block);
    stream.push({ type: "text_start", contentIndex: 0, partial });
    for (const chunk of ["a", "b", "c"]) {
      block.text += chunk;
      partial.usage.output += 1;
      stream.push({ type: "text_delta", contentIndex: 0, delta: chunk, partial });
    }
    stream.push({ type: "done", reason: "stop", message: partial });
    const seen: string[] = [];
    for await (const event of stream) {
      if ("partial" in event) seen.push(`${(event.partial.content[0] as { text: string }).text}/${event.partial.usage.output}`);
    }
    expect(seen).toEqual(["/0", "a/1", "ab/2", "abc/3"]);
    expect(await stream.result()).toBe(partial);
  });

  it("passes other events through unchanged, and a delta with no message before it keeps what it has", () => {
    const compact = createMessageUpdateCompactor();
    const start = { type: "agent_start" } as const;
    expect(compact(start)).toBe(start);
    const restore = createMessageUpdateRestorer();
    const orphan = { type: "message_update", assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta: "x" } } as unknown as AgentEvent;
    expect(restore(orphan)).toBe(orphan);
  });
});
