/**
 * `loopchart view` of the demo's trace in Debian's Chromium at 1400 × 900: the first screen
 * leads with the run (chart, timeline, transcript side by side), the loop chart's top level is
 * legible (no two labels overlap, no text under 11 px), and the chart, lanes and messages answer
 * clicks. Screenshots go to the test's temp dir (and, for a person to look at, to
 * test-output/viewer-first-screen/).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { childTmpDir, tempDir } from "../support/temp-dir.js";
import { CHROMIUM, CHROMIUM_ARGS, repoRoot as root, startView, VIEWPORT } from "./start-view.js";

/** The smallest font a label may have at 100 % zoom, in px. */
const MIN_FONT_PX = 11;
/** The fill of a box the run is in (viewer.css: `.state.active > rect`). */
const ACTIVE_FILL = "rgb(21, 101, 192)";
const output = join(root, "test-output", "viewer-first-screen");
const cli = ["--import", "tsx", join(root, "src/cli/main.ts")];

/** Runs the CLI to its end; rejects on a non-zero exit. */
function runCli(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    // The demo's workspace goes to the test file's child temp dir, removed after the file.
    const child = spawn(process.execPath, [...cli, ...args], { cwd: root, stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, TMPDIR: childTmpDir() } });
    let err = "";
    child.stderr.on("data", (chunk) => (err += chunk));
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`loopchart ${args.join(" ")} exited ${code}: ${err}`))));
  });
}

interface Box { x: number; y: number; width: number; height: number; text: string }
const overlaps = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

describe.skipIf(!existsSync(CHROMIUM))("loopchart view of the demo trace at 1400 × 900", () => {
  let browser: Browser;
  let view: { child: ChildProcess; url: string } | undefined;
  let dir: string;
  let page: Page;

  beforeAll(async () => {
    dir = await tempDir("loopchart-first-screen-");
    const { execFileSync } = await import("node:child_process");
    execFileSync(process.execPath, ["--import", "tsx", "scripts/build-viewer.ts"], { cwd: root });
    const trace = join(dir, "demo.jsonl");
    await runCli(["demo", "--trace", trace, "--delay", "0"]);
    view = await startView(trace);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    page = await browser.newPage({ viewport: VIEWPORT });
    await page.goto(view.url);
    await page.waitForSelector("body[data-charts=ready]");
    await page.waitForSelector(".lane[data-machine=toolCall]");
    await page.waitForSelector("#transcript .msg.final");
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    view?.child.kill();
    // One set of screenshots stays where a person can open them; the temp dir goes.
    if (dir) {
      await mkdir(output, { recursive: true });
      await cp(dir, output, { recursive: true, filter: (source) => !source.endsWith(".jsonl") });
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("shows the chart, the timeline and the transcript side by side, each starting inside the first viewport", async () => {
    await page.screenshot({ path: join(dir, "first-screen.png") });
    const boxes: Record<string, { x: number; y: number; width: number; height: number } | null> = {};
    for (const id of ["charts", "timeline", "transcript"]) boxes[id] = await page.locator(`#${id}`).boundingBox();
    for (const [id, box] of Object.entries(boxes)) {
      expect(box, id).not.toBeNull();
      expect(box?.y, `${id} starts inside the first screen`).toBeLessThan(VIEWPORT.height);
      expect(box?.x, `${id} starts inside the first screen`).toBeLessThan(VIEWPORT.width);
      expect(box?.height, `${id} is not empty`).toBeGreaterThan(100);
    }
    // The demo's run is no durable session: no checkpoints to mark, nothing to fork.
    expect(await page.$(".lane.checkpoints")).toBeNull();
    // Side by side: the chart left of the timeline and the transcript.
    expect((boxes.charts?.x ?? 0) + (boxes.charts?.width ?? 0)).toBeLessThanOrEqual(boxes.timeline?.x ?? 0);
    expect((boxes.charts?.x ?? 0) + (boxes.charts?.width ?? 0)).toBeLessThanOrEqual(boxes.transcript?.x ?? 0);
    // The loop's chart is drawn and the run's end is on it: the final state filled, the run's path marked.
    expect(await page.$$eval("div.chart[data-machine=agentLoop] g.state.active", (nodes) => nodes.map((n) => n.getAttribute("data-path")))).toContain("done");
    expect(await page.$$eval("div.chart[data-machine=agentLoop] g.state.visited", (nodes) => nodes.length)).toBeGreaterThan(0);
    // Once the loop's top level has compound states, it fits the chart's pane at 100 %.
    if ((await page.$$("div.chart[data-machine=agentLoop] g.state.compound:not(.machine)")).length > 0) {
      expect(await page.getAttribute("div.chart[data-machine=agentLoop]", "data-scale")).toBe("1");
    }
    // The page says what it shows: a recorded run, named by its first prompt.
    expect(await page.textContent("#kind")).toBe("recorded");
    expect(await page.textContent("#run-name")).toContain("Tidy up this workspace");
    // The final answer is shown whole, not folded.
    expect(await page.$$eval("#transcript .msg.final details", (nodes) => nodes.length)).toBe(0);
    expect(await page.isVisible("#transcript .msg.final pre")).toBe(true);
    // … and on the first screen: the transcript pane is scrolled to it.
    const final = await page.locator("#transcript .msg.final").boundingBox();
    expect((final?.y ?? VIEWPORT.height) + (final?.height ?? 0)).toBeLessThanOrEqual(VIEWPORT.height);
  });

  it("no two labels of the loop chart's top level overlap, and every label is at least 11 px", async () => {
    const texts: Box[] = await page.$$eval("div.chart[data-machine=agentLoop] svg text", (nodes) =>
      nodes.map((node) => {
        const rect = node.getBoundingClientRect();
        return { x: rect.x, y: rect.y, width: rect.width, height: rect.height, text: node.textContent ?? "" };
      }),
    );
    expect(texts.length).toBeGreaterThan(5);
    const clashes: string[] = [];
    texts.forEach((a, i) => texts.slice(i + 1).forEach((b) => overlaps(a, b) && clashes.push(`"${a.text}" / "${b.text}"`)));
    expect(clashes).toEqual([]);
    const sizes = await page.$$eval("svg.statechart text, .lane .label, .legend .key, .chart-bar h2, #chart-tabs .tab, .msg .role, .msg pre", (nodes) =>
      nodes.map((node) => [node.textContent ?? "", Number.parseFloat(node.ownerDocument.defaultView?.getComputedStyle(node).fontSize ?? "0")] as const),
    );
    expect(sizes.length).toBeGreaterThan(20);
    expect(sizes.filter(([, size]) => size < MIN_FONT_PX)).toEqual([]);
  });

  it("stepping through the run, the loop chart highlights the transition each step took", async () => {
    await page.keyboard.press("Home");
    const records = Number(await page.getAttribute("body", "data-records"));
    let highlighted = 0;
    for (let step = 0; step < records && highlighted === 0; step += 1) {
      await page.keyboard.press("ArrowRight");
      highlighted = (await page.$$("div.chart[data-machine=agentLoop] g.edge.current")).length;
    }
    expect(highlighted).toBeGreaterThan(0);
    const current = await page.$$eval("div.chart[data-machine=agentLoop] g.edge.current", (nodes) => nodes.map((n) => [n.getAttribute("data-from"), n.getAttribute("data-to")]));
    // The step's arrow leaves a state the run was in and enters one it is in now.
    const active = await page.$$eval("div.chart[data-machine=agentLoop] g.state.active", (nodes) => nodes.map((n) => n.getAttribute("data-path")));
    expect(current.some(([, to]) => active.includes(to))).toBe(true);
    await page.screenshot({ path: join(dir, "step-highlighted.png") });
    // A collapsed compound box the run is in is filled as active, as a leaf is: its white title stays readable.
    await page.keyboard.press("Home");
    let collapsedActive = 0;
    for (let step = 0; step < records && collapsedActive === 0; step += 1) {
      await page.keyboard.press("ArrowRight");
      collapsedActive = (await page.$$("div.chart[data-machine=agentLoop] g.state.active.collapsed")).length;
    }
    const fills = await page.$$eval("div.chart[data-machine=agentLoop] g.state.active.collapsed, div.chart[data-machine=agentLoop] g.state.active:not(.compound)", (nodes) =>
      nodes.map((n) => {
        const rect = n.querySelector(":scope > rect");
        return [n.getAttribute("data-path"), rect ? (n.ownerDocument.defaultView?.getComputedStyle(rect).fill ?? "") : "no rect"];
      }),
    );
    expect(collapsedActive).toBeGreaterThan(0);
    expect(fills.filter(([, fill]) => fill !== ACTIVE_FILL)).toEqual([]);
    await page.keyboard.press("End");
  });

  it("clicking a lane span or a transcript message moves the slider there; ←/→ step", async () => {
    await page.keyboard.press("End");
    const span = page.locator(".lane[data-machine=toolCall] rect.span").nth(1);
    const at = await span.getAttribute("data-at");
    await span.click();
    expect(await page.getAttribute("body", "data-cursor")).toBe(at);
    expect(await page.inputValue("#scrubber")).toBe(at);
    await page.screenshot({ path: join(dir, "after-span-click.png") });
    await page.keyboard.press("ArrowRight");
    expect(await page.getAttribute("body", "data-cursor")).toBe(String(Number(at) + 1));
    await page.keyboard.press("ArrowLeft");
    expect(await page.getAttribute("body", "data-cursor")).toBe(at);
    const message = page.locator("#transcript .msg:not([hidden])").first();
    const messageAt = await message.getAttribute("data-at");
    await message.click();
    expect(await page.getAttribute("body", "data-cursor")).toBe(messageAt);
    await page.keyboard.press("End");
  });

  it("a compound state opens on click (its children drawn inside it) and closes again", async () => {
    // The loop's chart when its top level has compound states; else the first chart that has one.
    const machine = await page.$$eval("div.chart", (charts) => {
      const withCompound = charts.filter((chart) => chart.querySelector("g.state.compound.collapsed"));
      return (withCompound.find((chart) => chart.getAttribute("data-machine") === "agentLoop") ?? withCompound[0])?.getAttribute("data-machine") ?? "";
    });
    expect(machine, "some chart has a collapsed compound state").not.toBe("");
    await page.click(`#chart-tabs .tab[data-machine=${machine}]`);
    const chart = `div.chart[data-machine=${machine}]`;
    const path = (await page.getAttribute(`${chart} g.state.compound.collapsed`, "data-path")) as string;
    const children = `${chart} g.state[data-path^="${path}."]`;
    expect(await page.$$(children)).toHaveLength(0);
    await page.click(`${chart} g.state.compound.collapsed[data-path="${path}"] text.title`);
    await page.waitForSelector(children);
    expect(await page.$$(`${chart} g.state.collapsed[data-path="${path}"]`)).toHaveLength(0);
    await page.screenshot({ path: join(dir, `${machine}-${path}-open.png`) });
    // Opened, the chart may outgrow its pane and follow the current state: fit brings the opened state back in view.
    await page.click(`.chart-bar[data-machine=${machine}] button.fit`);
    await page.click(`${chart} g.state.compound[data-path="${path}"] > text.title`);
    await page.waitForSelector(`${chart} g.state.collapsed[data-path="${path}"]`);
    expect(await page.$$(children)).toHaveLength(0);
    // Zoom: the wheel changes the scale, fit brings the whole chart back.
    const before = await page.getAttribute(chart, "data-scale");
    const drawing = await page.locator(`${chart} .drawing`).boundingBox();
    await page.mouse.move((drawing?.x ?? 0) + 200, (drawing?.y ?? 0) + 200);
    await page.mouse.wheel(0, -300);
    expect(await page.getAttribute(chart, "data-scale")).not.toBe(before);
    await page.click(`.chart-bar[data-machine=${machine}] button.fit`);
    expect(await page.getAttribute(chart, "data-scale")).toBe(await page.getAttribute(chart, "data-fit-scale"));
    await page.click("#chart-tabs .tab[data-machine=agentLoop]");
  });
});
