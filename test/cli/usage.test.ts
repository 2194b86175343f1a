import { describe, expect, it } from "vitest";
import { runCli } from "./spawn-cli.js";
import { tempDir } from "../support/temp-dir.js";

// Each case spawns the real CLI; the timeout allows for a loaded machine.
describe("loopchart usage", { timeout: 60_000 }, () => {
  it("should document every run option with an example in run --help", async () => {
    const result = await runCli(["run", "--help"]);
    expect(result.code).toBe(0);
    for (const option of ["--model", "--base-url", "--tools", "--all-tools", "--cwd", "--system", "--max-turns", "--trace", "--json"]) {
      expect(result.stdout).toContain(option);
    }
    expect(result.stdout).toContain("e.g. --max-turns 10");
    expect(result.stdout).toContain("OPENAI_API_KEY");
  });

  it("should list the commands in --help", async () => {
    const result = await runCli(["--help"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/loopchart run \[options\]/);
    expect(result.stdout).toMatch(/loopchart replay/);
    expect(result.stdout).toMatch(/loopchart demo/);
  });

  it("should exit 2 naming the unknown option", async () => {
    const result = await runCli(["run", "--frobnicate", "hi"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("Unknown option --frobnicate");
    expect(result.stderr).toContain("loopchart run --help");
  });

  it("should exit 2 when the prompt is missing", async () => {
    const result = await runCli(["run", "--model", "scripted/demo"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("expects a prompt");
  });

  it("should exit 2 for a bad --max-turns, an unknown tool, an unknown provider and an unknown command", async () => {
    const [turns, tools, provider, command] = await Promise.all([
      runCli(["run", "--model", "scripted/demo", "--max-turns", "zero", "hi"]),
      runCli(["run", "--model", "scripted/demo", "--tools", "read,telnet", "hi"]),
      runCli(["run", "--model", "gemini/pro", "hi"]),
      runCli(["fly"]),
    ]);
    expect(turns.code).toBe(2);
    expect(turns.stderr).toContain("--max-turns expects a whole number");
    expect(tools.code).toBe(2);
    expect(tools.stderr).toContain("unknown: telnet");
    expect(provider.code).toBe(2);
    expect(provider.stderr).toContain("provider one of scripted, openai, anthropic, openai-compatible");
    expect(command.code).toBe(2);
    expect(command.stderr).toContain('Unknown command "fly"');
  });

  it("should explain how to get a model when there is neither --model nor a key, and exit 2", async () => {
    const result = await runCli(["run", "hello"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("OPENAI_API_KEY");
    expect(result.stderr).toContain("ANTHROPIC_API_KEY");
    expect(result.stderr).toContain("--base-url");
    expect(result.stderr).toContain("--model scripted/demo");
  });

  it("should exit 2 when openai-compatible has no base URL, or openai has no key", async () => {
    const [compatible, openai] = await Promise.all([
      runCli(["run", "--model", "openai-compatible/llama", "hi"]),
      runCli(["run", "--model", "openai/gpt-4.1", "hi"]),
    ]);
    expect(compatible.code).toBe(2);
    expect(compatible.stderr).toContain("--base-url");
    expect(compatible.stderr).toContain("OPENAI_BASE_URL");
    expect(openai.code).toBe(2);
    expect(openai.stderr).toContain("needs OPENAI_API_KEY");
  });

  it("should exit 2 with the script's bad entry when a scripted model file is invalid", async () => {
    const { writeFile } = await import("node:fs/promises");
    const { join } = await import("node:path");
    const dir = await tempDir("loopchart-cli-");
    await writeFile(join(dir, "bad.json"), JSON.stringify({ responses: [{ content: [{ type: "toolCall", name: 3 }] }] }));
    const result = await runCli(["run", "--model", "scripted/bad.json", "hi"], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/bad\.json: responses\[0\]\.content\[0\]/);
  });
});
