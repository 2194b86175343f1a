import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../cli/spawn-cli.js";

describe("npm install in a fresh clone", () => {
  it("should leave no dependency's install script unreviewed, so npm prints no install-scripts warning", () => {
    // npm 11 blocks dependencies' install scripts unless package.json's allowScripts lists them,
    // and warns about every one it has no entry for.
    const output = execFileSync("npm", ["install-scripts", "ls"], { cwd: REPO_ROOT, encoding: "utf8" });
    expect(output.trim()).toBe("No packages with unreviewed install scripts.");
  }, 60_000);
});
