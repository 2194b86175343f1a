/**
 * `loopchart run --needs-approval` on a terminal asks y/n/always and goes on with the
 * answer (the CLI run in-process, with a terminal-like stdin and stderr).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/cli.js";
import type { CliIo } from "../../src/cli/cli-io.js";
import { tempDirSync } from "../support/temp-dir.js";

/** An io whose stdin and stderr say they are terminals; `answers` are typed in advance. */
function terminalIo(cwd: string, answers: string): { io: CliIo; out: () => string; err: () => string } {
  let out = "";
  let err = "";
  const stdin = Object.assign(new PassThrough(), { isTTY: true });
  stdin.end(answers);
  const io: CliIo = {
    stdout: { write: (chunk: string) => (out += chunk), isTTY: false },
    stderr: { write: (chunk: string) => (err += chunk), isTTY: true },
    stdin,
    env: { NO_COLOR: "1" },
    cwd,
    invokedAs: "loopchart",
    onInterrupt: () => () => {},
  };
  return { io, out: () => out, err: () => err };
}

function workspace(): { dir: string; script: string } {
  const dir = tempDirSync("loopchart-ask-");
  const script = join(dir, "script.json");
  writeFileSync(
    script,
    JSON.stringify({
      name: "ask",
      responses: [
        { content: [{ type: "toolCall", id: "w1", name: "write", arguments: { path: "out.txt", content: "yes\n" } }] },
        { content: [{ type: "text", text: "Over." }] },
      ],
    }),
  );
  return { dir, script };
}

describe("loopchart run --needs-approval on a terminal", () => {
  it("should ask again after an answer it does not understand, and run the call on yes", async () => {
    const { dir, script } = workspace();
    const { io, out, err } = terminalIo(dir, "perhaps\ny\n");
    const code = await runCli(["run", "--model", `scripted/${script}`, "--cwd", dir, "--tools", "write", "--needs-approval", "write", "Write it"], io);
    expect(code).toBe(0);
    expect(err().match(/Run write \{"path":"out.txt","content":"yes\\n"\}\? \[y\]es, \[n\]o, \[a\]lways for write: /g)).toHaveLength(2);
    expect(readFileSync(join(dir, "out.txt"), "utf8")).toBe("yes\n");
    expect(out()).toContain("Over.");
  });

  it("should give the call an error result on no, and the run goes on", async () => {
    const { dir, script } = workspace();
    const { io, out } = terminalIo(dir, "n\n");
    const code = await runCli(["run", "--model", `scripted/${script}`, "--cwd", dir, "--tools", "write", "--needs-approval", "write", "--json", "Write it"], io);
    expect(code).toBe(0);
    expect(existsSync(join(dir, "out.txt"))).toBe(false);
    const end = out()
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; toolCallId?: string; isError?: boolean; result?: { content: { text: string }[] } })
      .find((event) => event.type === "tool_execution_end");
    expect(end).toMatchObject({ toolCallId: "w1", isError: true });
    expect(end?.result?.content[0]?.text).toContain("Tool call was rejected");
  });

  it("should name the tools it does not offer", async () => {
    const { dir } = workspace();
    const { io, err } = terminalIo(dir, "");
    expect(await runCli(["run", "--model", "scripted/demo", "--cwd", dir, "--tools", "read", "--needs-approval", "bash", "x"], io)).toBe(2);
    expect(err()).toContain("--needs-approval names tools that are not offered: bash (offered: read).");
  });
});
