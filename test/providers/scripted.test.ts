import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AssistantMessage, Context, Message, ToolCall, ToolResultMessage } from "../../src/llm-types.js";
import {
  DEMO_SCRIPT,
  DEMO_WORKSPACE_FILES,
  ScriptError,
  createScriptedModel,
  loadScript,
  parsePartialJson,
  validateScript,
  type Script,
} from "../../src/providers/index.js";
import { collectStream, joinToolCallDeltas } from "../support/collect-stream.js";
import { tempDir } from "../support/temp-dir.js";

const run = promisify(execFile);

const userContext = (text = "go"): Context => ({ messages: [{ role: "user", content: text, timestamp: 1 }] });

function resultFor(call: ToolCall, text: string, isError: boolean): ToolResultMessage {
  return { role: "toolResult", toolCallId: call.id, toolName: call.name, content: [{ type: "text", text }], isError, timestamp: 2 };
}

function toolCalls(message: AssistantMessage): ToolCall[] {
  return message.content.filter((block): block is ToolCall => block.type === "toolCall");
}

let dir: string;
beforeAll(async () => {
  dir = await tempDir("loopchart-scripted-");
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("createScriptedModel", () => {
  it("streams thinking, text and a tool call as a realistic event sequence", async () => {
    const { model, streamFn } = createScriptedModel({
      name: "t",
      responses: [
        {
          content: [
            { type: "thinking", thinking: "I should look at the file first." },
            { type: "text", text: "Reading the file now, then I will report back." },
            { type: "toolCall", id: "c1", name: "read", arguments: { path: "a.txt", limit: 10 } },
          ],
        },
      ],
    });
    expect(model).toMatchObject({ id: "t", provider: "scripted", api: "scripted" });
    const { types, events, result } = await collectStream(streamFn(model, userContext()));
    const collapsed = types.filter((type, i) => type !== types[i - 1]);
    expect(collapsed).toEqual([
      "start",
      "thinking_start",
      "thinking_delta",
      "thinking_end",
      "text_start",
      "text_delta",
      "text_end",
      "toolcall_start",
      "toolcall_delta",
      "toolcall_end",
      "done",
    ]);
    expect(types.filter((type) => type === "text_delta").length).toBeGreaterThan(1);
    expect(types.filter((type) => type === "toolcall_delta").length).toBeGreaterThan(1);
    expect(result.stopReason).toBe("toolUse");
    expect(result.content).toEqual([
      { type: "thinking", thinking: "I should look at the file first." },
      { type: "text", text: "Reading the file now, then I will report back." },
      { type: "toolCall", id: "c1", name: "read", arguments: { path: "a.txt", limit: 10 } },
    ]);
    expect(result.usage.input).toBeGreaterThan(0);
    expect(result.usage.output).toBeGreaterThan(0);
    expect(result.usage.totalTokens).toBe(result.usage.input + result.usage.output);
    const textDeltas = events.map((event) => (event.type === "text_delta" ? event.delta : "")).join("");
    expect(textDeltas).toBe("Reading the file now, then I will report back.");
  });

  it("streams tool arguments as partial JSON that concatenates to the arguments", async () => {
    const args = { path: "notes.txt", edits: [{ oldText: "status: draft", newText: "status: reviewed" }] };
    const { model, streamFn } = createScriptedModel({ responses: [{ content: [{ type: "toolCall", name: "edit", arguments: args }] }] });
    const { events, result } = await collectStream(streamFn(model, userContext()));
    expect(JSON.parse(joinToolCallDeltas(events, 0))).toEqual(args);
    const deltas = events.filter((event) => event.type === "toolcall_delta");
    expect(deltas.every((event) => !isValidJson(event.delta))).toBe(true);
    const end = events.find((event) => event.type === "toolcall_end");
    expect(end?.type === "toolcall_end" && end.toolCall).toEqual({ type: "toolCall", id: "call_1_1", name: "edit", arguments: args });
    expect(result.stopReason).toBe("toolUse");
  });

  it("streams raw-string arguments verbatim and ends with the best-effort parse", async () => {
    const { model, streamFn } = createScriptedModel({
      responses: [{ content: [{ type: "toolCall", id: "cut", name: "write", arguments: '{"path": "s.md", "content": "# Sum' }], stopReason: "length" }],
    });
    const { events, result } = await collectStream(streamFn(model, userContext()));
    expect(joinToolCallDeltas(events, 0)).toBe('{"path": "s.md", "content": "# Sum');
    expect(result.stopReason).toBe("length");
    expect(result.content).toEqual([{ type: "toolCall", id: "cut", name: "write", arguments: { path: "s.md", content: "# Sum" } }]);
  });

  it("ends an error response with an error event carrying the scripted message and the given usage", async () => {
    const { model, streamFn } = createScriptedModel({
      responses: [{ content: [{ type: "text", text: "partial" }], stopReason: "error", errorMessage: "overloaded", usage: { input: 7, output: 3 } }],
    });
    const { types, result } = await collectStream(streamFn(model, userContext()));
    expect(types.at(-1)).toBe("error");
    expect(result).toMatchObject({ stopReason: "error", errorMessage: "overloaded" });
    expect(result.usage).toMatchObject({ input: 7, output: 3, totalTokens: 10 });
  });

  it("plays responses without `when` in order and answers with an error once the script runs out", async () => {
    const { model, streamFn } = createScriptedModel({
      name: "short",
      responses: [{ content: [{ type: "text", text: "one" }] }, { content: [{ type: "text", text: "two" }] }],
    });
    const texts: string[] = [];
    for (let i = 0; i < 2; i += 1) {
      const { result } = await collectStream(streamFn(model, userContext()));
      texts.push(result.content[0]?.type === "text" ? result.content[0].text : "");
    }
    expect(texts).toEqual(["one", "two"]);
    const { result, types } = await collectStream(streamFn(model, userContext()));
    expect(types).toEqual(["error"]);
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toMatch(/"short" has no response left: all 2 responses were played/);
  });

  it("branches on the latest tool results with `when`", async () => {
    const script: Script = {
      responses: [
        { content: [{ type: "toolCall", id: "c1", name: "read", arguments: { path: "x" } }] },
        { when: { toolResultContains: "ENOENT", isError: true }, content: [{ type: "text", text: "missing" }] },
        { when: { toolName: "read", isError: false }, content: [{ type: "text", text: "found" }] },
      ],
    };
    const answers: string[] = [];
    for (const outcome of [{ text: "ENOENT: no such file", isError: true }, { text: "hello", isError: false }]) {
      const { model, streamFn } = createScriptedModel(script);
      const first = (await collectStream(streamFn(model, userContext()))).result;
      const call = toolCalls(first)[0] as ToolCall;
      const messages: Message[] = [...userContext().messages, first, resultFor(call, outcome.text, outcome.isError)];
      const second = (await collectStream(streamFn(model, { messages }))).result;
      answers.push(second.content[0]?.type === "text" ? second.content[0].text : "");
    }
    expect(answers).toEqual(["missing", "found"]);
  });

  it("explains when only unmatched `when` responses are left", async () => {
    const { model, streamFn } = createScriptedModel({
      responses: [{ when: { isError: true }, content: [{ type: "text", text: "never" }] }],
    });
    const { result } = await collectStream(streamFn(model, userContext()));
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toMatch(/`when` matchers that do not match/);
  });

  it("ends with stopReason aborted when the signal fires mid-stream", async () => {
    const { model, streamFn } = createScriptedModel(
      { responses: [{ content: [{ type: "text", text: "a long answer that streams slowly word by word ".repeat(4) }] }] },
      { delayMs: 5 },
    );
    const controller = new AbortController();
    const stream = await streamFn(model, userContext(), { signal: controller.signal });
    const types: string[] = [];
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === "text_delta") controller.abort();
    }
    const result = await stream.result();
    expect(types.at(-1)).toBe("error");
    expect(types.filter((type) => type === "text_delta")).toHaveLength(1);
    expect(result.stopReason).toBe("aborted");
    expect(result.errorMessage).toBeTruthy();
  });

  it("ends at once with aborted when the signal is already aborted, playing nothing", async () => {
    const { model, streamFn } = createScriptedModel({ responses: [{ content: [{ type: "text", text: "kept" }] }] });
    const aborted = await collectStream(streamFn(model, userContext(), { signal: AbortSignal.abort() }));
    expect(aborted.types).toEqual(["error"]);
    expect(aborted.result.stopReason).toBe("aborted");
    const next = await collectStream(streamFn(model, userContext()));
    expect(next.result.content).toEqual([{ type: "text", text: "kept" }]);
  });
});

describe("loadScript", () => {
  it("loads a JSON file, naming the script after the file", async () => {
    const path = join(dir, "branchy.json");
    await writeFile(path, JSON.stringify({ responses: [{ content: [{ type: "text", text: "hi" }] }] }));
    const script = await loadScript(path);
    expect(script.name).toBe("branchy");
    expect(script.responses).toHaveLength(1);
  });

  it.each([
    [{ responses: [{ content: [] }, { content: [] }, { content: [{ type: "toolCall", name: "read", arguments: 42 }] }] }, "responses[2].content[0].arguments: expected object or string"],
    [{ responses: [{ content: [{ type: "image" }] }] }, 'responses[0].content[0].type: expected a block with type "text", "thinking" or "toolCall"'],
    [{ responses: [{ content: [], stopReason: "done" }] }, "responses[0].stopReason"],
    [{ responses: [{ content: [], stopreason: "stop" }] }, 'responses[0]: Unrecognized key: "stopreason"'],
    [{ responses: [{ content: [], when: {} }] }, "responses[0].when: expected at least one of"],
    [{ responses: [] }, "responses:"],
  ])("rejects a bad script with a ScriptError naming the entry (%#)", async (value, expected) => {
    const path = join(dir, "bad.json");
    await writeFile(path, JSON.stringify(value));
    const error = await loadScript(path).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ScriptError);
    expect((error as ScriptError).name).toBe("ScriptError");
    expect((error as ScriptError).message).toContain(expected);
    expect((error as ScriptError).message).toContain(path);
  });

  it("rejects a file that is not JSON and a file that does not exist", async () => {
    const path = join(dir, "broken.json");
    await writeFile(path, "{ responses: ");
    await expect(loadScript(path)).rejects.toThrow(/not valid JSON/);
    await expect(loadScript(join(dir, "nope.json"))).rejects.toThrow(/Cannot read script .*Give a built-in script name \("demo"\)/);
  });
});

describe("the demo script", () => {
  it("is a valid script and loads as a fresh copy", async () => {
    expect(validateScript(DEMO_SCRIPT, "demo")).toEqual(DEMO_SCRIPT);
    const loaded = await loadScript("demo");
    expect(loaded).toEqual(DEMO_SCRIPT);
    expect(loaded).not.toBe(DEMO_SCRIPT);
  });

  it("plays read, bash, edit, an invalid call, a truncated call, both re-issued, then a final answer", async () => {
    const { model, streamFn } = createScriptedModel(await loadScript("demo"));
    const refused = new Set(["call_list_bad", "call_write_cut"]);
    const messages: Message[] = userContext("Tidy up the workspace").messages;
    const trace: string[] = [];
    for (let turn = 0; turn < 20; turn += 1) {
      const { result } = await collectStream(streamFn(model, { messages }));
      messages.push(result);
      trace.push(`${result.stopReason}:${toolCalls(result).map((call) => call.name).join(",")}`);
      if (result.stopReason === "stop" || result.stopReason === "error") break;
      for (const call of toolCalls(result)) {
        messages.push(resultFor(call, refused.has(call.id) ? "refused" : "ok", refused.has(call.id)));
      }
    }
    expect(trace).toEqual(["toolUse:read", "toolUse:bash", "toolUse:edit", "toolUse:bash", "toolUse:bash", "length:write", "toolUse:write", "stop:"]);
    const invalid = messages.flatMap((m) => (m.role === "assistant" ? toolCalls(m) : [])).find((call) => call.id === "call_list_bad");
    expect(invalid?.arguments).not.toHaveProperty("command");
  });

  it("edits text that is really in its workspace, and records what greet.sh really prints", async () => {
    const workspace = await mkdtemp(join(dir, "demo-"));
    for (const [name, content] of Object.entries(DEMO_WORKSPACE_FILES)) await writeFile(join(workspace, name), content);
    const calls = DEMO_SCRIPT.responses.flatMap((response) => response.content.filter((block) => block.type === "toolCall"));
    const edit = calls.find((call) => call.name === "edit");
    const edits = (edit?.arguments as { path: string; edits: { oldText: string; newText: string }[] }).edits;
    for (const { oldText } of edits) expect(DEMO_WORKSPACE_FILES["notes.txt"]).toContain(oldText);
    const { stdout } = await run("sh", ["greet.sh", "loopchart"], { cwd: workspace });
    expect(edits.map((e) => e.newText)).toContain(`greet.sh says: ${stdout.trim()}`);
  });
});

describe("parsePartialJson", () => {
  it.each([
    ['{"path": "a.txt"}', { path: "a.txt" }],
    ['{"path": "a.t', { path: "a.t" }],
    ['{"edits": [{"oldText": "x", "newText": "y"}, {"old', { edits: [{ oldText: "x", newText: "y" }, {}] }],
    ['{"a": 1, "b": tr', { a: 1 }],
    ['{"a": "line\\', { a: "line" }],
    ["", {}],
    ["[1, 2]", {}],
  ])("recovers %j", (text, expected) => {
    expect(parsePartialJson(text)).toEqual(expected);
  });
});

function isValidJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
