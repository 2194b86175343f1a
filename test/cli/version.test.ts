import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, runCli } from "./spawn-cli.js";

const manifest = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { version: string };

describe("loopchart --version", () => {
  it.each(["--version", "-v"])("should print package.json's version for %s and exit 0", async (flag) => {
    const result = await runCli([flag]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${manifest.version}\n`);
  });
});
