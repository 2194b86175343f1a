/**
 * `loopchart view` of a durable session's trace in Debian's Chromium: the timeline marks
 * the session's checkpoints (each turn's end, counted over the whole session), and a
 * click on one prints the `loopchart fork` command for it — which, run as printed,
 * forks the session there. A screenshot of the marks and the command goes to the test's
 * temp dir (and, for a person to look at, to test-output/viewer-checkpoints/).
 */
import type { ChildProcess } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { cp, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSessionStore } from "../../src/sessions/open-session-store.js";
import { runCli } from "../cli/spawn-cli.js";
import { CHROMIUM, CHROMIUM_ARGS, repoRoot as root, startView, VIEWPORT } from "./start-view.js";
import { tempDir } from "../support/temp-dir.js";

const output = join(root, "test-output", "viewer-checkpoints");

/**
 * Each response of the traced run streams this slowly, so its turns each take at least twice this.
 * The ticks are placed on the run's time axis and are 5 px wide: a turn that took under ~0.4 % of
 * the run (a few ms of a run slowed by a loaded machine) put turn 4's tick over turn 3's, which then
 * took no click. With this floor, ticks overlap only in a run of two minutes or more.
 */
const TRACED_TURN_DELAY_MS = 250;
const read = (id: string, path: string) => ({ delayMs: TRACED_TURN_DELAY_MS, content: [{ type: "toolCall", id, name: "read", arguments: { path } }] });
const text = (value: string, delayMs = 0) => ({ delayMs, content: [{ type: "text", text: value }] });

describe.skipIf(!existsSync(CHROMIUM))("checkpoints in the viewer", () => {
  let browser: Browser;
  let view: { child: ChildProcess; url: string } | undefined;
  let dir: string;
  let page: Page;
  let sessions: string;

  beforeAll(async () => {
    dir = await tempDir("loopchart-viewer-checkpoints-");
    const { execFileSync } = await import("node:child_process");
    execFileSync(process.execPath, ["--import", "tsx", "scripts/build-viewer.ts"], { cwd: root });
    writeFileSync(join(dir, "a.txt"), "alpha\n");
    const script = join(dir, "script.json");
    writeFileSync(script, JSON.stringify({ name: "viewer-checkpoints", responses: [text("Hello."), read("r1", "a.txt"), read("r2", "a.txt"), text("It says alpha, twice.", TRACED_TURN_DELAY_MS)] }));
    sessions = join(dir, "sessions");
    const base = ["run", "--model", `scripted/${script}`, "--cwd", dir, "--tools", "read", "--session", "notes", "--store", sessions];
    // A first run of one turn, then the traced run: its turns are the session's 2nd to 4th.
    expect((await runCli([...base, "Say hello"], { cwd: dir })).code).toBe(0);
    const traced = await runCli([...base, "--trace", join(dir, "run.jsonl"), "Read a.txt twice"], { cwd: dir });
    expect(traced.code).toBe(0);
    view = await startView(join(dir, "run.jsonl"));
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    page = await browser.newPage({ viewport: VIEWPORT });
    await page.goto(view.url);
    await page.waitForSelector("body[data-charts=ready]");
    await page.waitForSelector(".lane.checkpoints .checkpoint");
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    view?.child.kill();
    if (dir) {
      await mkdir(output, { recursive: true });
      await cp(dir, output, { recursive: true, filter: (source) => source === dir || source.endsWith(".png") });
    }
  });

  it("should name the run's session in its trace header, with the turns before it", () => {
    const header = JSON.parse(readFileSync(join(dir, "run.jsonl"), "utf8").split("\n")[0] as string) as { session?: unknown };
    expect(header.session).toEqual({ id: "notes", store: sessions, turnsBefore: 1 });
  });

  it("should mark each turn's end, counted over the session, and print the fork command of the one clicked, which forks the session there", async () => {
    const marks = await page.$$eval(".lane.checkpoints .checkpoint.turn", (nodes) => nodes.map((node) => node.getAttribute("data-at")));
    expect(marks).toEqual(["2", "3", "4"]);
    await expect(page.textContent(".fork-panel")).resolves.toContain("Click a checkpoint to fork the run there.");
    await page.click('.lane.checkpoints .checkpoint[data-at="3"]');
    const command = await page.textContent(".fork-command");
    expect(command).toBe(`loopchart fork notes --at 3 --store ${sessions}`);
    await expect(page.textContent(".fork-panel")).resolves.toContain('Fork at the end of turn 3 (add --prompt "…" to replace what came after):');
    // The cursor moved to the checkpoint's record.
    const cursor = Number(await page.getAttribute("body", "data-cursor"));
    const at = Number(await page.getAttribute('.lane.checkpoints .checkpoint[data-at="3"]', "data-record"));
    expect(cursor).toBe(at);
    await page.screenshot({ path: join(dir, "checkpoint-fork-command.png") });
    const timeline = await page.$("#timeline");
    await timeline?.screenshot({ path: join(dir, "timeline-checkpoints.png") });

    // The buttons under the lanes choose one too (ticks close in time stay apart there).
    await page.click('.fork-panel .choice[data-at="4"]');
    await expect(page.textContent(".fork-command")).resolves.toBe(`loopchart fork notes --at 4 --store ${sessions}`);
    await page.click('.fork-panel .choice[data-at="3"]');
    // The printed command works as printed (with a prompt added).
    const words = (command ?? "").split(" ").slice(1);
    const forked = await runCli([...words, "--session", "notes-alt", "--prompt", "Read it once more"], { cwd: dir });
    expect(forked.stderr).toContain('Forked session "notes" at the end of turn 3 into "notes-alt".');
    expect(forked.code).toBe(0);
    const store = await openSessionStore(sessions);
    const alt = await store.load("notes-alt");
    const parent = await store.load("notes");
    await store.close();
    expect(alt?.record.forkedFrom).toMatchObject({ session: "notes", at: "3" });
    // Turn 3 ended after its read result: the parent's first seven messages.
    expect(alt?.messages.slice(0, 7)).toEqual(parent?.messages.slice(0, 7));
  }, 60_000);
});
