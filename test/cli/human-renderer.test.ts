import { describe, expect, it } from "vitest";
import { createHumanRenderer } from "../../src/cli/human-renderer.js";
import { createJsonRenderer } from "../../src/cli/json-renderer.js";
import { createRedactor } from "../../src/cli/redact.js";
import { summarizeArgs, summarizeResult } from "../../src/cli/summarize.js";
import { sampleRun } from "./sample-events.js";

function sink() {
  const chunks: string[] = [];
  return { write: (chunk: string) => chunks.push(chunk), text: () => chunks.join("") };
}

describe("createHumanRenderer", () => {
  it("should stream text to out and tool progress plus the final line to err", () => {
    const out = sink();
    const err = sink();
    const renderer = createHumanRenderer({ out, err, live: false, color: false });
    sampleRun().forEach((event, index) => renderer.render(event, 1000 + index * 10));
    renderer.close();

    expect(out.text()).toBe("Reading the notes.\nAll done.\n");
    const lines = err.text().trimEnd().split("\n");
    expect(lines).toContain("→ read notes.txt");
    expect(lines).toContain("→ bash false");
    expect(lines).toContain("✗ bash false · 10ms · Command exited with code 1");
    expect(lines).toContain("✓ read notes.txt · 30ms · 2 lines: line one");
    expect(lines.at(-1)).toBe("■ completed · 2 turns · 2 tool calls (1 failed) · 240 tokens (200 in, 40 out) · $0.0020");
  });

  it("should show a model error and its message", () => {
    const err = sink();
    const renderer = createHumanRenderer({ out: sink(), err, live: false, color: false });
    const message = { ...(sampleRun()[19] as { message: object }).message, stopReason: "error", errorMessage: "429 rate limited" };
    renderer.render({ type: "message_end", message } as never, 1);
    renderer.render({ type: "agent_end", messages: [], exitReason: "error" }, 2);
    expect(err.text()).toContain("✗ model error: 429 rate limited");
    expect(err.text()).toContain("■ error · 0 turns");
  });

  it("should say which call awaits approval, with its arguments", () => {
    const err = sink();
    const renderer = createHumanRenderer({ out: sink(), err, live: false, color: false });
    renderer.render({ type: "approval_requested", toolCallId: "c7", toolName: "bash", args: { command: "rm -rf build" } }, 1);
    expect(err.text()).toBe("? bash rm -rf build awaits approval (call c7)\n");
  });
});

describe("createHumanRenderer on a terminal, waiting for the model", () => {
  it("shows a spinner with the time since the request until the first byte of the response, then clears it", () => {
    const out = { ...sink(), isTTY: true };
    const err = { ...sink(), isTTY: true };
    let clock = 1_000;
    const renderer = createHumanRenderer({ out, err, live: true, color: false, now: () => clock });
    renderer.render({ type: "turn_start" }, 1_000);
    expect(err.text()).toContain("waiting for the model · 0ms");
    clock = 4_500;
    renderer.notice("a notice redraws the status");
    expect(err.text()).toContain("waiting for the model · 3.5s");
    const before = err.text().length;
    const message = (sampleRun().find((event) => event.type === "message_update") as { message: object }).message;
    renderer.render({ type: "message_update", message, assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta: "Hi", partial: message } } as never, 4_600);
    // The status line is cleared and not drawn again once the response streams.
    expect(err.text().slice(before)).toBe("\r\u001b[2K");
    clock = 9_000;
    renderer.notice("later");
    expect(err.text().slice(before)).not.toContain("waiting for the model");
    renderer.close();
  });

  it("shows no spinner when stderr is not a terminal", () => {
    const err = sink();
    const renderer = createHumanRenderer({ out: sink(), err, live: true, color: false, now: () => 5_000 });
    renderer.render({ type: "turn_start" }, 1_000);
    renderer.notice("n");
    expect(err.text()).toBe("n\n");
    renderer.close();
  });
});

describe("createJsonRenderer", () => {
  it("should write approval_requested as one JSON line on out, arguments redacted", () => {
    const out = sink();
    const err = sink();
    const renderer = createJsonRenderer({ out, err, redactor: createRedactor({ secrets: ["sk-secret-0123456789"] }) });
    renderer.render({ type: "approval_requested", toolCallId: "c7", toolName: "bash", args: { command: "curl -H sk-secret-0123456789" } }, 1);
    const lines = out.text().trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toEqual({ type: "approval_requested", toolCallId: "c7", toolName: "bash", args: { command: "curl -H [REDACTED]" } });
    expect(err.text()).toBe("");
  });
});

describe("summaries", () => {
  it("should put the primary argument first and others as name=value", () => {
    expect(summarizeArgs({ path: "a.ts", offset: 10, limit: 5 })).toBe("a.ts offset=10 limit=5");
    expect(summarizeArgs({ command: "ls\n-la" })).toBe("ls -la");
    expect(summarizeArgs({ cmd: "ls" })).toBe('cmd="ls"');
  });

  it("should cut long summaries to one line", () => {
    expect(summarizeArgs({ command: "x".repeat(200) })).toHaveLength(80);
    expect(summarizeResult({ content: [], details: {} })).toBe("(no output)");
  });
});

describe("createHumanRenderer on a terminal", () => {
  it("should show a running call as a spinner status line and replace it with the result line", () => {
    const out = { ...sink(), isTTY: true };
    const err = { ...sink(), isTTY: true, columns: 80 };
    let clock = 5000;
    const renderer = createHumanRenderer({ out, err, live: true, color: false, now: () => clock });
    renderer.render({ type: "tool_execution_start", toolCallId: "c1", toolName: "bash", args: { command: "sleep 1" } }, clock);
    const clear = "\r\u001b[2K";
    expect(err.text().endsWith(`${clear}⠋ bash 0ms sleep 1`)).toBe(true);
    clock += 1200;
    renderer.render({ type: "tool_execution_end", toolCallId: "c1", toolName: "bash", result: { content: [{ type: "text", text: "done" }], details: {} }, isError: false }, clock);
    renderer.close();
    expect(err.text().endsWith(`${clear}✓ bash sleep 1 · 1.2s · done\n`)).toBe(true);
  });
});
