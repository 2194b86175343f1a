/**
 * A session's run continued in another process (`loopchart approve`, `resume`) reads as
 * the same run: its final line counts the turns the run had before (as `loopchart
 * sessions` does), and a call still waiting shows its tool and arguments although this
 * process never saw its `approval_requested`.
 */
import {  rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "./spawn-cli.js";
import { tempDir } from "../support/temp-dir.js";

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

/** A session "deploy" whose first turn asks for two writes, both waiting for approval (exit 4). */
async function waitingSession(): Promise<string> {
  const dir = await tempDir("loopchart-continue-");
  dirs.push(dir);
  await writeFile(
    join(dir, "script.json"),
    JSON.stringify({
      name: "two-approvals",
      responses: [
        {
          content: [
            { type: "toolCall", id: "w1", name: "write", arguments: { path: "a.txt", content: "a\n" } },
            { type: "toolCall", id: "w2", name: "write", arguments: { path: "b.txt", content: "b\n" } },
          ],
        },
        { content: [{ type: "text", text: "Both written." }] },
      ],
    }),
  );
  const first = await runCli(["run", "--model", `scripted/${join(dir, "script.json")}`, "--cwd", dir, "--tools", "write", "--needs-approval", "write", "--session", "deploy", "Write them"], { cwd: dir });
  expect(first.code, first.stderr).toBe(4);
  return dir;
}

describe("a session's run continued by another process", { timeout: 90_000 }, () => {
  it("should name the tool and arguments of a call that still waits after approve", async () => {
    const dir = await waitingSession();
    const approved = await runCli(["approve", "deploy", "w1"], { cwd: dir });
    expect(approved.code, approved.stderr).toBe(4);
    expect(approved.stderr).toContain('Waiting for approval: w2 (write {"path":"b.txt","content":"b\\n"}).');
    expect(approved.stderr).not.toContain("(? )");
  });

  it("should count the run's turns as loopchart sessions does", async () => {
    const dir = await waitingSession();
    const before = await runCli(["sessions"], { cwd: dir });
    expect(before.stdout).toMatch(/deploy\s+awaiting approval\s+1\s/);
    const approved = await runCli(["approve", "deploy", "w1", "--always"], { cwd: dir });
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toContain("Both written.");
    const after = await runCli(["sessions"], { cwd: dir });
    expect(after.stdout).toMatch(/deploy\s+done\s+2\s/);
    expect(approved.stderr).toMatch(/■ completed · 2 turns · /);
    // The calls started before this process: their lines still name what they did.
    expect(approved.stderr).toContain("✓ write a.txt");
    expect(approved.stderr).toContain("✓ write b.txt");
  });

  it("should give the session's total beside the run's turns when a session goes on with a new prompt", async () => {
    const dir = await tempDir("loopchart-continue-");
    dirs.push(dir);
    await writeFile(join(dir, "script.json"), JSON.stringify({ name: "chat", responses: [{ content: [{ type: "text", text: "One." }] }, { content: [{ type: "text", text: "Two." }] }] }));
    const model = `scripted/${join(dir, "script.json")}`;
    const first = await runCli(["run", "--model", model, "--cwd", dir, "--session", "chat", "First"], { cwd: dir });
    expect(first.stderr).toMatch(/■ completed · 1 turn · 0 tool calls/);
    const second = await runCli(["run", "--model", model, "--cwd", dir, "--session", "chat", "Second"], { cwd: dir });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(/■ completed · 1 turn \(2 in the session\) · 0 tool calls/);
    const listed = await runCli(["sessions"], { cwd: dir });
    expect(listed.stdout).toMatch(/chat\s+done\s+2\s/);
  });
});
