/** What the browser tests of the viewer share: Debian's chromium as playwright-core drives it, and `loopchart view` started on a trace. */
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const CHROMIUM = "/usr/bin/chromium";
export const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];
/** The first screen the viewer is laid out for. */
export const VIEWPORT = { width: 1400, height: 900 };
export const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const cli = ["--import", "tsx", join(repoRoot, "src/cli/main.ts")];

/** Starts `loopchart view` and resolves with the URL it prints (never built by hand: the server decides it). */
export function startView(trace: string): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...cli, "view", trace, "--no-open"], { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const match = /Viewer: (\S+)/.exec(out);
      if (match) resolve({ child, url: match[1] as string });
    });
    child.on("exit", (code) => reject(new Error(`loopchart view exited ${code} before printing its URL: ${out}`)));
  });
}
