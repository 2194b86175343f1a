/**
 * Summarises a V8 `.cpuprofile` (from `node --cpu-prof`): self time per function
 * and per package, so the overhead of an engine can be read without DevTools.
 *
 * Usage: `npx tsx bench/summarise-profile.ts FILE.cpuprofile [TOP]`
 */
import { readFileSync } from "node:fs";

/** Rows printed per section when TOP is not given. */
const DEFAULT_TOP = 30;

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The package a script URL belongs to (`xstate`, `pi-agent-core`, `loopchart/src`, `node:internal`, …). */
export function packageOf(url: string): string {
  if (url === "") return "(native / vm)";
  if (url.startsWith("node:")) return "node:internal";
  const inModules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (inModules) {
    const all = [...url.matchAll(/node_modules\/((?:@[^/]+\/)?[^/]+)/g)];
    return all[all.length - 1][1];
  }
  const local = /\/(dist\/)?(src|machines|tools|bench)\//.exec(url);
  if (local) return `loopchart/${local[2]}`;
  return url;
}

function shortUrl(url: string): string {
  const index = url.lastIndexOf("node_modules/");
  if (index >= 0) return url.slice(index + "node_modules/".length);
  const main = url.indexOf("/work/main/");
  return main >= 0 ? url.slice(main + "/work/main/".length) : url;
}

function printTop(title: string, totals: Map<string, number>, all: number, top: number): void {
  process.stdout.write(`\n${title}\n`);
  const rows = [...totals.entries()].sort((a, b) => b[1] - a[1]).slice(0, top);
  for (const [key, micros] of rows) {
    process.stdout.write(`${(micros / 1000).toFixed(1).padStart(9)} ms ${((100 * micros) / all).toFixed(1).padStart(5)}%  ${key}\n`);
  }
}

function main(): void {
  const [file, topArg] = process.argv.slice(2);
  if (!file) throw new Error("usage: summarise-profile.ts FILE.cpuprofile [TOP]");
  const top = topArg ? Number(topArg) : DEFAULT_TOP;
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const byFunction = new Map<string, number>();
  const byPackage = new Map<string, number>();
  let all = 0;
  profile.samples.forEach((id, index) => {
    const node = byId.get(id);
    const delta = profile.timeDeltas[index] ?? 0;
    if (!node) return;
    all += delta;
    const { functionName, url, lineNumber } = node.callFrame;
    const fn = `${functionName || "(anonymous)"} ${shortUrl(url)}:${lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + delta);
    const pkg = packageOf(url);
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + delta);
  });
  process.stdout.write(`total sampled ${(all / 1000).toFixed(0)} ms\n`);
  printTop("self time by package", byPackage, all, top);
  printTop("self time by function", byFunction, all, top);
}

main();
