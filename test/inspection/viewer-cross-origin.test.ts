/**
 * The viewer server in a real browser (Debian's Chromium via playwright-core): a page on
 * another origin of the same machine, opened in the same browser after the user's own viewer
 * (so the token's cookie is there to be sent), can neither read a run over the WebSocket or
 * HTTP nor inject one. The user's page takes the token off its address bar and says when the
 * server dropped records to stay within its memory cap.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { fileURLToPath } from "node:url";
import { chromium, type Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startViewerServer, type ViewerServer } from "../../src/cli/viewer-server.js";
import type { TraceEventLine } from "../../src/cli/trace-format.js";

const CHROMIUM = "/usr/bin/chromium";
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];
const records = (count: number, pad = 0) =>
  Array.from({ length: count }, (_, n) => ({ t: 1_000 + n, event: { type: "turn_start", ...(pad ? { pad: "p".repeat(pad) } : {}) } }) as unknown as TraceEventLine);

/** The attacker's page: reads what it can from the viewer at `target` (host:port) and reports it in its title. */
const attackerPage = (target: string) => `<!doctype html><title>working</title><script>
const results = {};
const done = () => { if (Object.keys(results).length === 3) document.title = JSON.stringify(results); };
const viewer = new WebSocket("ws://${target}/api/viewer");
let stolen = 0;
viewer.onmessage = (m) => { const data = JSON.parse(m.data); if (data.runs) viewer.send(JSON.stringify({ watch: "trace-1", from: 0 })); if (data.records) stolen += data.records.length; };
viewer.onclose = () => { results.socket = "closed, stolen " + stolen; done(); };
const injector = new WebSocket("ws://${target}/");
injector.onopen = () => injector.send(JSON.stringify({ t: 1, event: { type: "agent_start" } }));
injector.onclose = () => { results.inject = "closed"; done(); };
fetch("http://${target}/api/runs/trace-1", { credentials: "include" }).then((r) => r.text()).then((t) => { results.http = "read " + t.length; done(); }, () => { results.http = "blocked"; done(); });
setTimeout(() => { viewer.close(); injector.close(); }, 3000);
</script>`;

describe.skipIf(!existsSync(CHROMIUM))("the viewer server and a page of another origin, in Chromium", () => {
  let browser: Browser;
  let server: ViewerServer | undefined;
  let attacker: Server | undefined;
  beforeAll(async () => {
    execFileSync(process.execPath, ["--import", "tsx", "scripts/build-viewer.ts"], { cwd: fileURLToPath(new URL("../../", import.meta.url)) });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  }, 60_000);
  afterAll(async () => browser?.close());
  afterEach(async () => {
    await server?.close();
    await new Promise((resolve) => (attacker ? attacker.close(resolve) : resolve(undefined)));
    attacker = undefined;
  });

  it("a cross-origin page cannot read runs over the WebSocket or HTTP, nor inject one, even with the user's cookie in the browser", async () => {
    server = await startViewerServer();
    server.addRun("secret run", records(81));
    const context = await browser.newContext();
    const own = await context.newPage();
    await own.goto(server.url);
    await own.waitForSelector('body[data-records="81"]');
    // The token came once in the URL; the page keeps it in a cookie and takes it off the address bar.
    expect(new URL(own.url()).search).toBe("");
    expect((await context.cookies()).map((c) => c.name)).toEqual([`loopchart-token-${new URL(server.origin).port}`]);

    attacker = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/html" });
      response.end(attackerPage(new URL(server?.origin ?? "").host));
    });
    await new Promise<void>((resolve) => attacker?.listen(0, "127.0.0.1", resolve));
    const evil = await context.newPage();
    await evil.goto(`http://127.0.0.1:${(attacker.address() as { port: number }).port}/`);
    await evil.waitForFunction("document.title.startsWith(\"{\")", undefined, { timeout: 20_000 });
    const results = JSON.parse(await evil.title()) as Record<string, string>;
    expect(results).toEqual({ socket: "closed, stolen 0", inject: "closed", http: "blocked" });
    expect(server.inspectorConnections()).toBe(0);
    expect(((await (await fetch(`${server.origin}/api/runs?token=${server.token}`)).json()) as unknown[]).length).toBe(1);
    await context.close();
  }, 60_000);

  it("says on the page how many of the oldest records the server dropped to stay within its memory cap", async () => {
    server = await startViewerServer({ maxRunBytes: 50_000 });
    server.addRun("a long run", records(200, 500));
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(server.url);
    const held = (await (await fetch(`${server.origin}/api/runs/trace-1?token=${server.token}`)).json()) as { dropped: number; records: unknown[] };
    expect(held.dropped).toBeGreaterThan(100);
    await page.waitForSelector(`body[data-records="${held.records.length}"]`);
    expect(await page.getAttribute("body", "data-dropped")).toBe(String(held.dropped));
    expect(await page.textContent("#dropped")).toBe(`The server dropped this run's ${held.dropped} oldest records to stay within its memory cap.`);
    await context.close();
  }, 60_000);
});
