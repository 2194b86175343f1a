import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../cli/spawn-cli.js";

interface PackedFile {
  path: string;
}

describe("npm pack", () => {
  it("should build first and ship dist/ code, a LICENSE and no source maps whose sources are not shipped", () => {
    // `--dry-run` still runs `prepack`, so this checks that packing builds.
    const output = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts=false"], { cwd: REPO_ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
    const [packed] = JSON.parse(output.slice(output.indexOf("["))) as [{ files: PackedFile[] }];
    const paths = packed.files.map((file) => file.path);
    expect(paths).toContain("LICENSE");
    expect(paths).toContain("dist/src/index.js");
    expect(paths).toContain("dist/src/cli/main.js");
    expect(paths).toContain("dist/tools/index.d.ts");
    expect(paths).toContain("docs/scripted-model.schema.json");
    expect(paths).toContain("docs/examples/read-then-answer.json");
    expect(paths.filter((path) => path.endsWith(".map"))).toEqual([]);
  }, 120_000);
});
