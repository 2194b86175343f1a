/**
 * Approval across processes: a parallel batch of three calls, one needing approval, is
 * saved while it waits and the process exits (code 4: no terminal to ask on); another
 * process answers with `loopchart approve` / `reject` and the run completes. The two
 * calls that needed no approval ran exactly once. Both stores.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openSessionStore } from "../../src/sessions/open-session-store.js";
import type { AgentMessage } from "../../src/types.js";
import { runCli } from "./spawn-cli.js";
import { STORE_KINDS } from "../sessions/store-fixtures.js";
import { tempDirSync } from "../support/temp-dir.js";

const results = (messages: AgentMessage[]) =>
  messages.flatMap((message) =>
    message.role === "toolResult" ? [`${message.toolCallId}${message.isError ? " error" : ""}: ${message.content.map((block) => (block.type === "text" ? block.text : "")).join("")}`] : [],
  );

for (const kind of STORE_KINDS) {
  describe(`a call waiting for approval across processes (${kind.name} store)`, () => {
    const start = async () => {
      const dir = tempDirSync("loopchart-approval-");
      const spec = kind.cliSpec(kind.freshLocation());
      const script = join(dir, "script.json");
      writeFileSync(
        script,
        JSON.stringify({
          name: "approval",
          responses: [
            {
              content: [
                { type: "toolCall", id: "b1", name: "bash", arguments: { command: "echo b1 >> ran.txt" } },
                { type: "toolCall", id: "w1", name: "write", arguments: { path: "out.txt", content: "approved\n" } },
                { type: "toolCall", id: "b2", name: "bash", arguments: { command: "echo b2 >> ran.txt" } },
              ],
            },
            { content: [{ type: "text", text: "Finished." }] },
          ],
        }),
      );
      const first = await runCli(["run", "--model", `scripted/${script}`, "--cwd", dir, "--tools", "bash,write", "--needs-approval", "write", "--session", "deploy", "--store", spec, "Go"], { cwd: dir });
      expect(first.code).toBe(4);
      expect(first.stderr).toContain('Waiting for approval: w1 (write {"path":"out.txt","content":"approved\\n"}). The session "deploy" is saved; answer with:');
      expect(first.stderr).toContain(`approve deploy w1 --store ${spec} [--always]`);
      const listed = await runCli(["sessions", "--store", spec], { cwd: dir });
      expect(listed.stdout).toMatch(/deploy\s+awaiting approval\s+1\s/);
      expect(readFileSync(join(dir, "ran.txt"), "utf8").split("\n").filter(Boolean).sort()).toEqual(["b1", "b2"]);
      return { dir, spec };
    };

    const finalMessages = async (spec: string) => {
      const store = await openSessionStore(spec);
      const stored = await store.load("deploy");
      await store.close();
      return stored;
    };

    it("should run the approved call in the second process and complete, without re-running its siblings", async () => {
      const { dir, spec } = await start();
      const wrong = await runCli(["approve", "deploy", "b1", "--store", spec], { cwd: dir });
      expect(wrong.code).toBe(2);
      expect(wrong.stderr).toContain('Tool call "b1" of session "deploy" is not awaiting approval; waiting: w1.');
      const approved = await runCli(["approve", "deploy", "w1", "--store", spec], { cwd: dir });
      expect(approved.stderr).not.toContain("loopchart:");
      expect(approved.code).toBe(0);
      expect(approved.stdout).toContain("Finished.");
      expect(readFileSync(join(dir, "out.txt"), "utf8")).toBe("approved\n");
      expect(readFileSync(join(dir, "ran.txt"), "utf8").split("\n").filter(Boolean).sort()).toEqual(["b1", "b2"]);
      const stored = await finalMessages(spec);
      expect(stored?.record.state).toBe("done");
      expect(results(stored?.messages ?? []).map((line) => line.split(":")[0])).toEqual(["b1", "w1", "b2"]);
      expect(stored?.messages.map((message) => message.role)).toEqual(["user", "assistant", "toolResult", "toolResult", "toolResult", "assistant"]);
      const again = await runCli(["approve", "deploy", "w1", "--store", spec], { cwd: dir });
      expect(again.code).toBe(2);
      expect(again.stderr).toContain('Session "deploy" is not awaiting approval (state: done).');
    }, 90_000);

    it("should give the rejected call an error result with the reason, and complete", async () => {
      const { dir, spec } = await start();
      const rejected = await runCli(["reject", "deploy", "w1", "--reason", "not on a Friday", "--store", spec], { cwd: dir });
      expect(rejected.code).toBe(0);
      expect(rejected.stdout).toContain("Finished.");
      expect(existsSync(join(dir, "out.txt"))).toBe(false);
      expect(readFileSync(join(dir, "ran.txt"), "utf8").split("\n").filter(Boolean).sort()).toEqual(["b1", "b2"]);
      const stored = await finalMessages(spec);
      const lines = results(stored?.messages ?? []);
      expect(lines.map((line) => line.split(":")[0])).toEqual(["b1", "w1 error", "b2"]);
      expect(lines[1]).toContain("Tool call was rejected");
      expect(lines[1]).toContain("not on a Friday");
    }, 90_000);
  });
}
