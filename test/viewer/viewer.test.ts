import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWebSocketInspector } from "@statelyai/inspect";
import { Type } from "typebox";
import { createAgentLoopActor } from "../../src/xstate/index.js";
import { recordTrace } from "../../src/inspection/record-trace.js";
import { createScriptedModel } from "../../src/providers/scripted.js";
import type { AgentTool } from "../../src/types.js";
import { loadTrace } from "../../src/cli/trace-reader.js";
import { startViewerServer, type ViewerServer } from "../../src/cli/viewer-server.js";
import { viewCommand } from "../../src/cli/serve-commands.js";
import type { TraceEventLine, TraceInspectionLine } from "../../src/cli/trace-format.js";
import { LONG_RUN_TURNS, recordLongRun } from "../support/long-trace-run.js";
import { SAMPLE_BATCH_IDS, recordSampleRun } from "../support/sample-trace-run.js";
import { tempDir } from "../support/temp-dir.js";

type Line = TraceEventLine | TraceInspectionLine;
/** A run's records as a trace holds them, written by hand: a loop and calls going through the given snapshot values. */
function handMadeRun(calls: Record<string, unknown[]>): Line[] {
  let t = 1_000;
  const lines: Line[] = [{ t: (t += 1), inspect: { type: "@xstate.actor", actorId: "x:0", sessionId: "x:0", machineId: "agentLoop" } }];
  const snapshot = (sessionId: string, actorId: string, value: unknown, status = "active"): Line => ({
    t: (t += 10),
    inspect: { type: "@xstate.snapshot", actorId, sessionId, event: { type: "x" }, snapshot: { status, value } },
  });
  lines.push(snapshot("x:0", "x:0", "requesting"), snapshot("x:0", "x:0", { toolBatch: "preparing" }));
  Object.keys(calls).forEach((id, n) => lines.push({ t: (t += 1), inspect: { type: "@xstate.actor", actorId: id, sessionId: `x:${n + 1}`, parentId: "x:0", machineId: "toolCall" } }));
  Object.entries(calls).forEach(([id, values], n) => {
    for (const value of values) lines.push(snapshot(`x:${n + 1}`, id, value));
    lines.push(snapshot(`x:${n + 1}`, id, "done", "done"));
  });
  // A long tool result, which the transcript folds.
  const result = { role: "toolResult", toolCallId: "call_top", toolName: "echo", content: [{ type: "text", text: "r".repeat(1_000) }], isError: false, timestamp: 1 };
  lines.push({ t: (t += 1), event: { type: "message_end", message: result } } as unknown as Line);
  lines.push(snapshot("x:0", "x:0", "done", "done"));
  return lines;
}

/** The inspection events @statelyai/inspect sends a message for (it skips the others). */
const SENT_INSPECTIONS = new Set(["@xstate.actor", "@xstate.event", "@xstate.snapshot"]);

const CHROMIUM = "/usr/bin/chromium";
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const root = fileURLToPath(new URL("../../", import.meta.url));
const output = join(root, "test-output", "viewer");

describe.skipIf(!existsSync(CHROMIUM))("the run viewer in a browser", () => {
  let browser: Browser;
  let server: ViewerServer;
  const foreign: string[] = [];

  async function open(url: string): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    page.on("request", (request) => {
      const host = new URL(request.url()).hostname;
      if (host !== "127.0.0.1") foreign.push(request.url());
    });
    await page.goto(url);
    await page.waitForSelector("body[data-charts=ready]");
    return page;
  }

  beforeAll(async () => {
    execFileSync(process.execPath, ["--import", "tsx", "scripts/build-viewer.ts"], { cwd: root });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
    await mkdir(output, { recursive: true });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("shows a recorded run: lanes in source order, the error mark, active states, and scrubbing", async () => {
    const file = join(await tempDir("loopchart-view-"), "run.jsonl");
    await recordSampleRun(file);
    const trace = await loadTrace(file);
    server = await startViewerServer();
    server.addRun(file, trace.records);
    const page = await open(server.url);
    await page.waitForSelector(".lane[data-machine=toolCall]");
    const lanes = await page.$$eval(".lane[data-machine=toolCall]", (nodes) => nodes.map((n) => n.getAttribute("data-actor")));
    expect(lanes).toEqual([...SAMPLE_BATCH_IDS, "call_d"]);
    expect(await page.$$eval("[data-error]", (nodes) => nodes.map((n) => n.getAttribute("data-error")))).toEqual(["call_b", "call_d"]);
    expect(await page.$$eval(".lane[data-machine=agentLoop] rect", (nodes) => nodes.map((n) => n.getAttribute("data-state")))).toContain("requesting");
    // At the end the loop is done.
    expect(await page.$$eval('[data-machine=agentLoop] .state.active', (nodes) => nodes.map((n) => n.getAttribute("data-path")))).toContain("done");
    await page.screenshot({ path: join(output, "recorded.png"), fullPage: true });

    // Scrub to the first snapshot where call_a executes: its lane says so and the loop is in its batch state.
    const index = trace.records.findIndex((r) => "inspect" in r && r.inspect.type === "@xstate.snapshot" && (r.inspect.snapshot.context as { toolCallId?: string } | undefined)?.toolCallId === "call_a" && JSON.stringify(r.inspect.snapshot.value).includes("executing"));
    expect(index).toBeGreaterThan(0);
    await page.$eval("#scrubber", (input, value) => {
      (input as unknown as { value: string }).value = String(value);
      input.dispatchEvent(new Event("input"));
    }, index);
    expect(await page.getAttribute(".lane[data-actor=call_a]", "data-current")).toBe("executing");
    const loopActive = await page.$$eval('[data-machine=agentLoop] .state.active', (nodes) => nodes.map((n) => n.getAttribute("data-path")));
    expect(loopActive).not.toContain("done");
    // The charts are the generated SVGs: transitions drawn as arrows, the active state highlighted on them.
    expect(await page.$$eval("div.chart[data-machine=agentLoop] svg .edge path", (nodes) => nodes.length)).toBeGreaterThan(3);
    // The lane's name chooses the call (a span would also move the cursor).
    await page.click(".lane[data-actor=call_a] .label");
    expect(await page.getAttribute("div.chart[data-machine=toolCall]", "data-actor")).toBe("call_a");
    expect(await page.$$eval("div.chart[data-machine=toolCall] g.state.active", (nodes) => nodes.map((n) => n.getAttribute("data-path")))).toContain("executing");
    await page.keyboard.press("Home");
    expect(await page.getAttribute("body", "data-cursor")).toBe("0");
    await page.keyboard.press("ArrowRight");
    expect(await page.getAttribute("body", "data-cursor")).toBe("1");
    await page.keyboard.press("End");
    expect(await page.getAttribute("body", "data-cursor")).toBe(String(trace.records.length - 1));
    expect(foreign).toEqual([]);
    await page.close();
    await server.close();
  }, 60_000);

  // The page connects while the run is under way (opened after the run starts, not awaited):
  // whatever the server received before the page's socket opened is replayed to it, so at the end
  // the page holds exactly the server's records.
  it("shows a live run sent by createWebSocketInspector while it runs, missing nothing sent before the page connected", async () => {
    server = await startViewerServer();
    const inspector = createWebSocketInspector({ url: server.inspectUrl });
    // @statelyai/inspect keeps only 200 events while its own socket opens: start once it is open.
    while (server.inspectorConnections() === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    // The inspector turns each actor, event and snapshot inspection into one message, on a later
    // timer (its idle callback in Node), and sends it: count them, to know when the server has all.
    let produced = 0;
    const inspect = (event: { type: string }) => {
      if (SENT_INSPECTIONS.has(event.type)) produced += 1;
      inspector.inspect.next?.(event as never);
    };
    const file = join(await tempDir("loopchart-live-"), "run.jsonl");
    const run = recordSampleRun(file, { delayMs: 5, inspect: inspect as never });
    const page = await open(server.url);
    await page.waitForSelector(".lane[data-machine=toolCall]", { timeout: 20_000 });
    await run;
    await page.waitForSelector(".lane[data-actor=call_d]", { timeout: 20_000 });
    const runs = (await (await fetch(`${server.origin}/api/runs?token=${server.token}`)).json()) as { id: string }[];
    expect(runs).toHaveLength(1);
    const heldNow = async () =>
      ((await (await fetch(`${server.origin}/api/runs/${encodeURIComponent(runs[0].id)}?token=${server.token}`)).json()) as { records: unknown[] }).records;
    // The run's last messages may still be on their way when it ends: read what the server holds once it has them all
    // (read earlier, the page could draw past that count in one frame and never show it).
    const inspections = (records: unknown[]) => records.filter((r) => typeof r === "object" && r !== null && "inspect" in r);
    let held = await heldNow();
    while (inspections(held).length < produced) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      held = await heldNow();
    }
    expect(inspections(held)).toHaveLength(produced);
    // The server reads the run's transcript off the loop's snapshots: a message_end record for each new message, in order.
    const { messages } = await run;
    const ended = held.flatMap((r) => ((r as Partial<TraceEventLine>).event?.type === "message_end" ? [(r as TraceEventLine).event] : []));
    expect(ended.map((event) => (event as { message?: unknown }).message)).toEqual(JSON.parse(JSON.stringify(messages)));
    expect(held).toHaveLength(produced + messages.length);
    await page.waitForSelector(`body[data-records="${held.length}"]`, { timeout: 20_000 });
    // So the live page shows the transcript as a recorded one does, the final answer marked.
    expect(await page.$$eval("#transcript .msg", (nodes) => nodes.map((n) => n.getAttribute("data-role")))).toEqual(messages.map((m) => m.role));
    expect(await page.textContent("#transcript .msg.final pre")).toBe("All done.");
    expect(await page.$$eval(".lane[data-machine=toolCall]", (nodes) => nodes.map((n) => n.getAttribute("data-actor")))).toEqual([...SAMPLE_BATCH_IDS, "call_d"]);
    expect(await page.textContent("#kind")).toBe("live");
    await page.screenshot({ path: join(output, "live.png"), fullPage: true });
    inspector.stop();
    expect(foreign).toEqual([]);
  }, 60_000);
  // The call machine may gain a state in which a call waits for a person's approval, at the top
  // level or inside `preparing`: its lane shows it as a span of its own with the approval colour.
  it("shows awaiting-approval spans on a call's lane, wherever the call machine puts that state, and folds a long result", async () => {
    server = await startViewerServer();
    server.addRun(
      "approval",
      handMadeRun({
        call_top: ["queued", { preparing: "validating" }, "awaitingApproval", "executing"],
        call_nested: ["queued", { preparing: "validating" }, { preparing: "awaitingApproval" }, "executing", "finalizing"],
      }),
    );
    const page = await open(server.url);
    await page.waitForSelector(".lane[data-actor=call_nested] rect");
    const statesOf = (id: string) => page.$$eval(`.lane[data-actor=${id}] rect`, (nodes) => nodes.map((n) => n.getAttribute("data-state")));
    expect(await statesOf("call_top")).toEqual(["queued", "preparing", "awaitingApproval", "executing", "done"]);
    expect(await statesOf("call_nested")).toEqual(["queued", "preparing", "awaitingApproval", "executing", "finalizing", "done"]);
    const fills = await page.$$eval(".lane[data-machine=toolCall] rect", (nodes) => nodes.map((n) => [n.getAttribute("data-state"), n.getAttribute("fill")]));
    const approvalFills = new Set(fills.filter(([state]) => state === "awaitingApproval").map(([, fill]) => fill));
    expect(approvalFills.size).toBe(1);
    expect(fills.filter(([state]) => state !== "awaitingApproval").some(([, fill]) => approvalFills.has(fill))).toBe(false);
    // Scrubbed to the nested call's approval snapshot, its lane says it awaits approval.
    const at = Number(await page.getAttribute("#scrubber", "max"));
    for (let i = at; i >= 0; i -= 1) {
      await page.$eval("#scrubber", (input, value) => {
        (input as unknown as { value: string }).value = String(value);
        input.dispatchEvent(new Event("input"));
      }, i);
      if ((await page.getAttribute(".lane[data-actor=call_nested]", "data-current")) === "awaitingApproval") break;
    }
    expect(await page.getAttribute(".lane[data-actor=call_nested]", "data-current")).toBe("awaitingApproval");
    // At the end the long result is in the transcript, folded to its first characters.
    await page.keyboard.press("End");
    expect(await page.$eval("#transcript .msg[data-role=toolResult] details summary", (node) => node.textContent)).toContain("(1000 characters)");
    expect(foreign).toEqual([]);
    await page.close();
    await server.close();
  }, 60_000);

  it("shows a compaction on the loop's lane: a compacting span and a mark that says what it replaced", async () => {
    let t = 5_000;
    const snapshot = (value: unknown, status = "active"): Line => ({ t: (t += 10), inspect: { type: "@xstate.snapshot", actorId: "x:0", sessionId: "x:0", event: { type: "x" }, snapshot: { status, value } } });
    const lines: Line[] = [
      { t: (t += 1), inspect: { type: "@xstate.actor", actorId: "x:0", sessionId: "x:0", machineId: "agentLoop" } },
      snapshot({ requesting: "awaitingResponse" }),
      { t: (t += 1), event: { type: "compaction_start", reason: "threshold", tokensBefore: 9000 } } as unknown as Line,
      snapshot({ requesting: "compacting" }),
      { t: (t += 20), event: { type: "compaction_end", reason: "threshold", compacted: true, tokensBefore: 9000, tokensAfter: 2100, summary: "## Goal", replaced: 14 } } as unknown as Line,
      snapshot({ requesting: "awaitingResponse" }),
      snapshot("done", "done"),
    ];
    server = await startViewerServer();
    server.addRun("compaction", lines);
    const page = await open(server.url);
    await page.waitForSelector(".lane[data-machine=agentLoop] .compaction-mark");
    const states = await page.$$eval(".lane[data-machine=agentLoop] rect", (nodes) => nodes.map((n) => n.getAttribute("data-state")));
    expect(states).toEqual(["requesting", "compacting", "requesting", "done"]);
    const title = await page.$eval(".lane[data-machine=agentLoop] .compaction-mark title", (node) => node.textContent);
    expect(title).toBe("compaction (threshold): 14 messages summarized, ~9000 → ~2100 tokens — click to go here");
    expect(await page.$eval(".legend .compaction-key", (node) => node.textContent)).toBe("▲ compaction");
    // A click on the mark moves the cursor to where the compaction ended.
    await page.click(".lane[data-machine=agentLoop] .compaction-mark", { force: true });
    expect(await page.$eval("#scrubber", (input) => (input as unknown as { value: string }).value)).toBe("4");
    expect(foreign).toEqual([]);
    await page.close();
    await server.close();
  }, 60_000);

  it("shows the awaiting-approval span of a real run whose tool needs approval", async () => {
    const file = join(await tempDir("loopchart-approval-"), "run.jsonl");
    const parameters = Type.Object({ path: Type.String() });
    const remove: AgentTool<typeof parameters> = {
      name: "remove",
      label: "Remove",
      description: "Removes a file",
      parameters,
      needsApproval: true,
      execute: async (_id, args) => ({ content: [{ type: "text", text: `removed ${args.path}` }], details: {} }),
    };
    const scripted = createScriptedModel({
      name: "approval",
      responses: [{ content: [{ type: "toolCall", id: "call_rm", name: "remove", arguments: { path: "notes.txt" } }] }, { content: [{ type: "text", text: "Removed." }] }],
    });
    const recorder = recordTrace({ file });
    const actor = createAgentLoopActor({
      prompts: [{ role: "user", content: "remove notes.txt", timestamp: Date.now() }],
      context: { systemPrompt: "", messages: [], tools: [remove] },
      config: { model: scripted.model, convertToLlm: (all) => all as never },
      streamFn: scripted.streamFn,
      inspect: recorder.inspect,
      onEvent(event) {
        recorder.onEvent(event);
        // The person approves a moment later, once the call waits.
        if (event.type === "approval_requested") setTimeout(() => actor.send({ type: "tool.approve", toolCallId: event.toolCallId }), 20);
      },
    });
    await new Promise<void>((resolve) => {
      actor.subscribe({ complete: () => resolve() });
      actor.start();
    });
    await recorder.close();
    const trace = await loadTrace(file);
    server = await startViewerServer();
    server.addRun(file, trace.records);
    const page = await open(server.url);
    await page.waitForSelector(".lane[data-actor=call_rm] rect");
    const states = await page.$$eval(".lane[data-actor=call_rm] rect", (nodes) => nodes.map((n) => n.getAttribute("data-state")));
    expect(states).toContain("awaitingApproval");
    expect(states.indexOf("awaitingApproval")).toBeLessThan(states.indexOf("executing"));
    await page.screenshot({ path: join(output, "approval.png"), fullPage: true });
    expect(foreign).toEqual([]);
    await page.close();
    await server.close();
  }, 60_000);

  it(`opens the trace of a ${LONG_RUN_TURNS}-turn run: every record, one lane per call, stepping to either end`, async () => {
    const file = join(await tempDir("loopchart-long-"), "run.jsonl");
    const turns = await recordLongRun({ file });
    expect(turns).toBe(LONG_RUN_TURNS);
    const trace = await loadTrace(file);
    server = await startViewerServer();
    server.addRun(file, trace.records);
    const page = await open(server.url);
    await page.waitForSelector(`body[data-records="${trace.records.length}"]`, { timeout: 240_000 });
    const lanes = await page.$$eval(".lane[data-machine=toolCall]", (nodes) => nodes.map((n) => n.getAttribute("data-actor")));
    expect(lanes).toEqual(Array.from({ length: LONG_RUN_TURNS - 1 }, (_, n) => `call_${n}`));
    expect(await page.$$eval("[data-machine=agentLoop] .state.active", (nodes) => nodes.map((n) => n.getAttribute("data-path")))).toContain("done");
    expect(await page.$$eval("#transcript .msg:not([hidden])", (nodes) => nodes.length)).toBe(1 + 2 * (LONG_RUN_TURNS - 1) + 1);
    await page.keyboard.press("Home");
    await page.waitForSelector('body[data-cursor="0"]');
    expect(await page.$$eval("#transcript .msg:not([hidden])", (nodes) => nodes.length)).toBe(0);
    await page.keyboard.press("End");
    await page.waitForSelector(`body[data-cursor="${trace.records.length - 1}"]`);
    await page.screenshot({ path: join(output, "long-run.png") });
    expect(foreign).toEqual([]);
    await page.close();
    await server.close();
  }, 300_000);
});

describe("loopchart view on a corrupted trace", () => {
  it("names file and line and exits non-zero", async () => {
    const file = join(await tempDir("loopchart-bad-"), "bad.jsonl");
    await writeFile(file, '{"type":"trace_header","version":2,"startedAt":""}\n{"t":1,"event":{"type":"agent_start"}}\n{oops\n');
    let err = "";
    const io = { stdout: { write: () => true }, stderr: { write: (s: string) => ((err += s), true) }, onInterrupt: () => () => {} };
    const code = await viewCommand([file, "--no-open"], io as never);
    expect(code).not.toBe(0);
    expect(err).toContain(`${file}:line 3: not valid JSON`);
  });
});
