/**
 * On a terminal the approval question stays visible until it is answered: the spinner
 * does not redraw the line while a call waits for a decision, and the call's time counts
 * from the answer, not from when it was asked. Checked on the renderer with a fake clock,
 * and end to end with the real CLI on a pseudo-terminal (`script` from util-linux).
 */
import { spawn, spawnSync } from "node:child_process";
import {  rm } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { SPINNER_INTERVAL_MS, createHumanRenderer } from "../../src/cli/human-renderer.js";
import { CLI_ENTRY, REPO_ROOT } from "./spawn-cli.js";
import { tempDir } from "../support/temp-dir.js";

const CLEAR_LINE = "\r\u001b[2K";
const QUESTION = "Run bash {\"command\":\"ls\"}? [y]es, [n]o, [a]lways for bash: ";

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));
afterEach(() => vi.useRealTimers());

describe("the spinner while a call awaits approval", () => {
  it("should stand still while the question is open and time the call from the answer", () => {
    vi.useFakeTimers();
    let clock = 0;
    let err = "";
    const renderer = createHumanRenderer({ out: { write: () => {}, isTTY: true }, err: { write: (chunk: string) => (err += chunk), isTTY: true, columns: 80 }, live: true, color: false, now: () => clock });
    renderer.render({ type: "tool_execution_start", toolCallId: "c1", toolName: "bash", args: { command: "ls" } }, clock);
    vi.advanceTimersByTime(SPINNER_INTERVAL_MS);
    expect(err).toContain("bash 0ms");
    renderer.render({ type: "approval_requested", toolCallId: "c1", toolName: "bash", args: { command: "ls" } }, clock);
    err += QUESTION; // what askApproval writes
    const asked = err.length;
    for (; clock < 30_000; clock += SPINNER_INTERVAL_MS) vi.advanceTimersByTime(SPINNER_INTERVAL_MS);
    expect(err.slice(asked)).toBe("");

    renderer.approvalAnswered?.("c1", clock);
    clock += 250;
    vi.advanceTimersByTime(SPINNER_INTERVAL_MS);
    expect(err.slice(asked)).toContain("bash 250ms");
    renderer.render({ type: "tool_execution_end", toolCallId: "c1", toolName: "bash", result: { content: [{ type: "text", text: "a.txt" }], details: {} }, isError: false }, clock + 50);
    renderer.close();
    expect(err).toContain("✓ bash ls · 300ms · a.txt");
  });
});

/** Whether util-linux's `script` is on PATH (Debian: bsdutils). */
const HAS_SCRIPT = spawnSync("sh", ["-c", "command -v script"]).status === 0;

describe.skipIf(!HAS_SCRIPT)("loopchart run --needs-approval on a pseudo-terminal (skipped without util-linux's script)", { timeout: 60_000 }, () => {
  it("should keep the question on screen until it is answered, then run the call", async () => {
    const cwd = await tempDir("loopchart-pty-");
    dirs.push(cwd);
    const tsx = pathToFileURL(join(REPO_ROOT, "node_modules/tsx/dist/loader.mjs")).href;
    const command = [process.execPath, "--import", tsx, CLI_ENTRY, "run", "--model", "scripted/demo", "--needs-approval", "bash", "--cwd", cwd, "Tidy the notes"]
      .map((arg) => `'${arg.replace(/'/g, "'\\''")}'`)
      .join(" ");
    // script gives the CLI a terminal for stdin, stdout and stderr; what it shows comes out of script's stdout.
    const child = spawn("script", ["--quiet", "--return", "--command", command, "/dev/null"], {
      env: { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? "", NO_COLOR: "1", TERM: "dumb" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let screen = "";
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    const seen = (text: string, from = 0) =>
      new Promise<number>((resolve, reject) => {
        const check = () => {
          const at = screen.indexOf(text, from);
          if (at >= 0) {
            child.stdout.off("data", check);
            resolve(at + text.length);
          }
        };
        child.stdout.setEncoding("utf8").on("data", check);
        void exited.then(() => reject(new Error(`exited before "${text}" appeared:\n${screen}`)));
        check();
      });
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (screen += chunk));

    const asked = await seen("[a]lways for bash: ");
    // Long enough for many spinner frames: none may be drawn over the question.
    await new Promise((resolve) => setTimeout(resolve, SPINNER_INTERVAL_MS * 10));
    expect(screen.slice(asked)).toBe("");
    expect(screen.slice(0, asked).split(CLEAR_LINE).at(-1)).toMatch(/Run bash \{"command":"sh greet\.sh loopchart"\}\? \[y\]es, \[n\]o, \[a\]lways for bash: $/);

    child.stdin.write("a\n");
    await seen("✓ bash sh greet.sh loopchart", asked);
    expect(await exited).toBe(0);
    expect(screen).toContain("■ completed");
  });
});
