/**
 * Measures the peak RSS of one `read {limit: 5}` of a generated 600 MB text file (issue
 * 32, defect 9): `npx tsx scripts/measure-read-rss.ts [megabytes]`. Prints the file size,
 * the process's RSS before and its peak (maxRSS) after; the temp dir is removed.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createReadTool } from "../tools/index.js";

const MB = 1024 * 1024;
const KIB_PER_MB = 1024;
const DEFAULT_MEGABYTES = 600;
/** Writes argv[1] with argv[2] MB of numbered lines; run in a child so this process's peak RSS is the read's. */
const GENERATOR = `
const fs = require("node:fs");
const fd = fs.openSync(process.argv[1], "w");
let written = 0, n = 0;
while (written < Number(process.argv[2]) * 1024 * 1024) {
  let block = "";
  for (let i = 0; i < 10000; i++) block += "line " + ++n + " " + "lorem ipsum ".repeat(6) + "\\n";
  written += fs.writeSync(fd, block);
}
fs.closeSync(fd);
`;

const megabytes = Number(process.argv[2] ?? DEFAULT_MEGABYTES);
const dir = mkdtempSync(join(tmpdir(), "loopchart-read-rss-"));
try {
  const path = join(dir, "big.log");
  execFileSync(process.execPath, ["-e", GENERATOR, path, String(megabytes)]);
  const written = statSync(path).size;
  const before = process.memoryUsage().rss;
  const result = await createReadTool(dir).execute("m", { path: "big.log", limit: 5 });
  const text = result.content.map((c) => ("text" in c ? c.text : "")).join("");
  const peakMb = process.resourceUsage().maxRSS / KIB_PER_MB;
  console.log(`file: ${(written / MB).toFixed(0)} MB`);
  console.log(`rss before read: ${(before / MB).toFixed(0)} MB; peak rss (maxRSS): ${peakMb.toFixed(0)} MB`);
  console.log(`result ends: ${text.split("\n").slice(-1)[0]}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
