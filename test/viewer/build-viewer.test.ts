/**
 * scripts/build-viewer.ts replaces dist/viewer/index.html whole. Test files build the page in
 * parallel while others start servers that read it: written in place, a reader could get it cut
 * short (0, 512 KiB or 1 MiB of its 1.5 MiB), and that server served a page that never drew.
 */
import { execFile, execFileSync } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));
const outDir = new URL("../../dist/viewer/", import.meta.url);
const page = new URL("index.html", outDir);
const BUILD = [process.execPath, ["--import", "tsx", "scripts/build-viewer.ts"]] as const;
/** Builds running at once while the page is read. */
const CONCURRENT_BUILDS = 2;

describe("scripts/build-viewer.ts", () => {
  it("replaces the page whole: a reader while builds run never gets it cut short, and nothing is left beside it", async () => {
    execFileSync(BUILD[0], BUILD[1], { cwd: root });
    let building = true;
    const children = Array.from({ length: CONCURRENT_BUILDS }, () => promisify(execFile)(BUILD[0], BUILD[1], { cwd: root }));
    const builds = Promise.all(children).finally(() => {
      building = false;
    });
    const cut: number[] = [];
    let reads = 0;
    while (building) {
      const text = await readFile(page, "utf8");
      reads += 1;
      if (!text.trimEnd().endsWith("</html>")) cut.push(text.length);
    }
    await builds;
    expect(reads).toBeGreaterThan(0);
    expect(cut).toEqual([]);
    // Nothing of these builds is left beside the page (other test files may be building now too).
    const pids = children.map((child) => child.child.pid);
    expect((await readdir(outDir)).filter((name) => pids.some((pid) => name.includes(`.${pid}.`)))).toEqual([]);
  }, 120_000);
});
