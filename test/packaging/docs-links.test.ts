import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../cli/spawn-cli.js";

/** Relative link targets (Markdown links and images) of a Markdown text, without #anchors. */
function relativeLinks(markdown: string): string[] {
  const targets = [...markdown.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1] as string);
  return targets.filter((target) => !/^[a-z]+:/i.test(target) && !target.startsWith("#")).map((target) => target.split("#")[0] as string);
}

describe("the docs stand on their own", () => {
  it("should link only to files inside the repository that exist", async () => {
    const files = ["README.md", ...(await readdir(join(REPO_ROOT, "docs"))).filter((file) => file.endsWith(".md")).map((file) => `docs/${file}`)];
    const broken: string[] = [];
    for (const file of files) {
      const text = await readFile(join(REPO_ROOT, file), "utf8");
      for (const target of relativeLinks(text)) {
        const path = resolve(REPO_ROOT, dirname(file), target);
        if (relative(REPO_ROOT, path).startsWith("..") || !existsSync(path)) broken.push(`${file} → ${target}`);
      }
      if (/\bDESIGN(\.md| §)/.test(text)) broken.push(`${file} cites DESIGN, which is not in the repository`);
    }
    expect(broken).toEqual([]);
  });

  it("should give the README only absolute links (it is read on npm too), each to a file that exists here", async () => {
    const readme = await readFile(join(REPO_ROOT, "README.md"), "utf8");
    expect(relativeLinks(readme)).toEqual([]);
    const repoFiles = [...readme.matchAll(/\]\((https:\/\/(?:github\.com\/loopchart\/loopchart\/blob|raw\.githubusercontent\.com\/loopchart\/loopchart)\/main\/([^)#\s]+))/g)];
    expect(repoFiles.length).toBeGreaterThan(2);
    expect(repoFiles.map((match) => match[2] as string).filter((path) => !existsSync(join(REPO_ROOT, path)))).toEqual([]);
  });

  it("should link BEHAVIOUR.md from the README and ARCHITECTURE.md", async () => {
    expect(await readFile(join(REPO_ROOT, "docs/ARCHITECTURE.md"), "utf8")).toContain("[`BEHAVIOUR.md`](BEHAVIOUR.md)");
    expect(await readFile(join(REPO_ROOT, "README.md"), "utf8")).toContain("docs/BEHAVIOUR.md");
  });
});
