/**
 * Issue 32, defect 7 (CLI part): `loopchart run` confines the file tools to --cwd by
 * default; `--no-confine` opts out. Real CLI processes, a scripted model, temp dirs.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseRunArgs } from "../../src/cli/parse-run-args.js";
import { createTempWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";
import { runCli } from "./spawn-cli.js";

let cwd: TempWorkspace;
let outside: TempWorkspace;
beforeEach(() => {
  cwd = createTempWorkspace({}, "loopchart-cli-confine-");
  outside = createTempWorkspace({ "secret.txt": "OUTSIDE-SECRET\n" });
});
afterEach(() => {
  cwd.cleanup();
  outside.cleanup();
});

interface ToolEnd {
  type: string;
  isError?: boolean;
  result?: { content: { text: string }[] };
}

async function readOutside(extra: string[]): Promise<ToolEnd> {
  const script = {
    responses: [
      { content: [{ type: "toolCall", id: "call_1", name: "read", arguments: { path: outside.path("secret.txt") } }] },
      { content: [{ type: "text", text: "done" }], stopReason: "stop" },
    ],
  };
  cwd.write("script.json", JSON.stringify(script));
  const result = await runCli(["run", "--model", "scripted/./script.json", "--tools", "read", "--json", ...extra, "go"], { cwd: cwd.dir });
  expect(result.code, result.stderr).toBe(0);
  const ends = result.stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as ToolEnd)
    .filter((event) => event.type === "tool_execution_end");
  expect(ends).toHaveLength(1);
  return ends[0] as ToolEnd;
}

describe("loopchart run confines the tools to --cwd", () => {
  it("refuses a read outside --cwd by default", async () => {
    const end = await readOutside([]);
    expect(end.isError).toBe(true);
    expect(end.result?.content[0]?.text).toMatch(/is outside the allowed directory .*loopchart-cli-confine-/);
  });

  it("reads it with --no-confine", async () => {
    const end = await readOutside(["--no-confine"]);
    expect(end.isError).toBe(false);
    expect(end.result?.content[0]?.text).toBe("OUTSIDE-SECRET");
  });

  it("parses --no-confine", () => {
    expect(parseRunArgs(["hi"], cwd.dir).confine).toBe(true);
    expect(parseRunArgs(["--no-confine", "hi"], cwd.dir).confine).toBe(false);
  });
});
