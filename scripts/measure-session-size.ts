/**
 * `npx tsx scripts/measure-session-size.ts [MB] [jsonl|sqlite]`: what a long answer
 * costs a durable session (issue 31 item 6): runs `loopchart run --session` as a
 * child process (under `/usr/bin/time` for its peak RSS) with a scripted model that
 * answers `MB` megabytes of text (default 50), then prints the size of each file of
 * the session store beside the answer's size. Sizes and memory, not speed.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const megabytes = Number(process.argv[2] ?? 50);
const kind = process.argv[3] ?? "jsonl";
if (!(megabytes > 0) || (kind !== "jsonl" && kind !== "sqlite")) {
  process.stderr.write("usage: npx tsx scripts/measure-session-size.ts [MB > 0] [jsonl|sqlite]\n");
  process.exit(2);
}
const MIB = 1024 * 1024;
const root = fileURLToPath(new URL("../", import.meta.url));
const loader = pathToFileURL(join(root, "node_modules/tsx/dist/loader.mjs")).href;
const dir = mkdtempSync(join(tmpdir(), "loopchart-session-size-"));
try {
  const answer = "x".repeat(Math.round(megabytes * MIB));
  const script = join(dir, "script.json");
  writeFileSync(script, JSON.stringify({ name: "long-answer", responses: [{ content: [{ type: "text", text: answer }] }] }));
  const store = kind === "jsonl" ? join(dir, "sessions") : join(dir, "sessions.db");
  const spec = kind === "jsonl" ? store : `sqlite:${store}`;
  const timeOut = join(dir, "time.txt");
  execFileSync("/usr/bin/time", ["-f", "%M", "-o", timeOut, process.execPath, "--import", loader, join(root, "src/cli/main.ts"), "run", "--model", `scripted/${script}`, "--cwd", dir, "--tools", "none", "--session", "long", "--store", spec, "Answer at length"], {
    cwd: dir,
    stdio: ["ignore", "ignore", "inherit"],
    maxBuffer: 1024 * MIB,
  });
  const { readFileSync } = await import("node:fs");
  const peakKiB = Number(readFileSync(timeOut, "utf8").trim().split("\n").pop());
  const files = (path: string): string[] =>
    statSync(path).isDirectory() ? readdirSync(path).flatMap((name) => files(join(path, name))) : [path];
  const sized = files(kind === "jsonl" ? store : dir).filter((path) => kind === "jsonl" || path.startsWith(store));
  const total = sized.reduce((sum, path) => sum + statSync(path).size, 0);
  process.stdout.write(`answer: ${megabytes} MB (${answer.length} bytes), store: ${kind}\n`);
  for (const path of sized) process.stdout.write(`  ${path.slice(dir.length + 1)}: ${(statSync(path).size / MIB).toFixed(1)} MB\n`);
  process.stdout.write(`session total: ${(total / MIB).toFixed(1)} MB (${(total / answer.length).toFixed(2)}× the answer)\n`);
  process.stdout.write(`peak RSS of the run: ${(peakKiB / 1024).toFixed(0)} MB\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
