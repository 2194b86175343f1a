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

describe("negative numeric options", () => {
  it("should say the value must be ≥ 0 for demo --delay -5", async () => {
    const result = await runCli(["demo", "--delay", "-5"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--delay must be a number ≥ 0; got -5");
  });
});
