import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT_CODES, exitCodeFor } from "../../src/cli/exit-codes.js";
import { parseRunArgs } from "../../src/cli/parse-run-args.js";
import { resolveModel } from "../../src/cli/resolve-model.js";
import { UsageError } from "../../src/cli/usage-error.js";
import { tempDir } from "../support/temp-dir.js";

describe("parseRunArgs", () => {
  it("should apply the defaults: the coding tools, the current directory, no trace", () => {
    const args = parseRunArgs(["Fix", "the", "bug"], tmpdir());
    expect(args).toMatchObject({ prompt: "Fix the bug", tools: ["read", "bash", "edit", "write"], cwd: tmpdir(), json: false });
    expect(args.tracePath).toBeUndefined();
  });

  it("should resolve --cwd and --trace against the base directory and read every option", async () => {
    const base = await tempDir("loopchart-args-");
    const args = parseRunArgs(
      ["-m", "scripted/demo", "--all-tools", "--cwd", ".", "--system", "Be brief", "--max-turns", "4", "--max-retries", "0", "--trace", "t.jsonl", "--json", "hi"],
      base,
    );
    expect(args).toMatchObject({
      model: "scripted/demo",
      tools: ["read", "bash", "edit", "write", "grep", "find", "ls"],
      cwd: base,
      systemPrompt: "Be brief",
      maxTurns: 4,
      maxRetries: 0,
      tracePath: join(base, "t.jsonl"),
      json: true,
    });
    expect(parseRunArgs(["--tools", "none", "hi"], base).tools).toEqual([]);
  });

  it("should reject --tools with --all-tools, a missing --cwd, and a zero --max-turns with messages that say what was expected", () => {
    expect(() => parseRunArgs(["--tools", "read", "--all-tools", "hi"], tmpdir())).toThrow(/either --tools <list> or --all-tools/);
    expect(() => parseRunArgs(["--cwd", "/no/such/dir", "hi"], tmpdir())).toThrow(/--cwd expects an existing directory/);
    expect(() => parseRunArgs(["--max-turns", "0", "hi"], tmpdir())).toThrow(UsageError);
    expect(() => parseRunArgs(["--max-turns"], tmpdir())).toThrow(/--max-turns/);
  });
});

describe("resolveModel", () => {
  it("should read --thinking, max included, and reject a level it does not know", () => {
    expect(parseRunArgs(["--thinking", "max", "hi"], tmpdir()).thinkingLevel).toBe("max");
    expect(parseRunArgs(["--thinking", "High", "hi"], tmpdir()).thinkingLevel).toBe("high");
    expect(parseRunArgs(["hi"], tmpdir()).thinkingLevel).toBeUndefined();
    expect(() => parseRunArgs(["--thinking", "extreme", "hi"], tmpdir())).toThrow(UsageError);
    expect(() => parseRunArgs(["--thinking", "extreme", "hi"], tmpdir())).toThrow(/--thinking expects one of off, minimal, low, medium, high, xhigh, max/);
  });

  it("should pick openai when only OPENAI_API_KEY is set and keep the key for redaction", async () => {
    const resolved = await resolveModel({ env: { OPENAI_API_KEY: "sk-test-0123456789abcdefgh" }, cwd: tmpdir() });
    expect(resolved.spec).toBe("openai/gpt-4.1-mini");
    expect(resolved.apiKey).toBe("sk-test-0123456789abcdefgh");
  });

  it("should pick anthropic when only ANTHROPIC_API_KEY is set", async () => {
    const resolved = await resolveModel({ env: { ANTHROPIC_API_KEY: "sk-ant-0123456789abcdefgh" }, cwd: tmpdir() });
    expect(resolved.spec).toBe("anthropic/claude-sonnet-4-5");
    expect(resolved.model.provider).toBeTruthy();
  });

  it("should take the openai-compatible base URL from OPENAI_BASE_URL and refuse a malformed one", async () => {
    const resolved = await resolveModel({ spec: "openai-compatible/llama3.2", env: { OPENAI_BASE_URL: "http://127.0.0.1:11434/v1" }, cwd: tmpdir() });
    expect(resolved.model.id).toBe("llama3.2");
    await expect(resolveModel({ spec: "openai-compatible/x", baseUrl: "localhost:11434", env: {}, cwd: tmpdir() })).rejects.toThrow(/--base-url expects an http/);
  });

  it("should keep slashes in the model id", async () => {
    const resolved = await resolveModel({ spec: "openai-compatible/meta-llama/Llama-3.1-8B", baseUrl: "http://127.0.0.1:8000/v1", env: {}, cwd: tmpdir() });
    expect(resolved.model.id).toBe("meta-llama/Llama-3.1-8B");
  });
});

describe("exitCodeFor", () => {
  it("should map every exit reason to its documented code", () => {
    expect(["completed", "terminated", "stopped", "error", "maxTurns", "aborted"].map((reason) => exitCodeFor(reason as never))).toEqual([0, 0, 0, 1, 3, 130]);
    expect(EXIT_CODES.usage).toBe(2);
  });
});
