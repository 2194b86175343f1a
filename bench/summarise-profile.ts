/**
 * Summarises a V8 CPU profile (the `.cpuprofile` of `node --cpu-prof`, or what
 * `bench/profile.ts` records): self time per function, self and inclusive time
 * per package, so an engine's overhead can be read without DevTools.
 *
 * CLI: `npx tsx bench/summarise-profile.ts FILE.cpuprofile [TOP]`
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Rows printed per section when TOP is not given. */
export const DEFAULT_TOP = 30;

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

/** The parts of a V8 CPU profile this summary reads. */
export interface CpuProfile {
  nodes: ProfileNode[];
  samples?: number[];
  timeDeltas?: number[];
}

const NATIVE = "(native / vm)";
const INSPECTOR = "node:inspector";
const MODULE_PATTERN = /node_modules\/((?:@[^/]+\/)?[^/]+)/g;

/** The package a script URL belongs to (`xstate`, `@mariozechner/pi-agent-core`, `loopchart/src`, `node:internal`, …). */
export function packageOf(url: string): string {
  if (url === "") return NATIVE;
  if (url === INSPECTOR) return INSPECTOR;
  if (url.startsWith("node:")) return "node:internal";
  const modules = [...url.matchAll(MODULE_PATTERN)];
  if (modules.length > 0) return modules[modules.length - 1][1];
  const local = /\/(dist\/)?(src|machines|tools|bench)\//.exec(url);
  if (local) return `loopchart/${local[2]}`;
  return url;
}

function shortUrl(url: string): string {
  const index = url.lastIndexOf("node_modules/");
  if (index >= 0) return url.slice(index + "node_modules/".length);
  const local = /\/((?:dist\/)?(?:src|machines|tools|bench)\/.*)$/.exec(url);
  return local ? local[1] : url;
}

function formatTop(title: string, totals: Map<string, number>, all: number, top: number): string[] {
  const rows = [...totals.entries()].sort((a, b) => b[1] - a[1]).slice(0, top);
  return [
    "",
    title,
    ...rows.map(([key, micros]) => `${(micros / 1000).toFixed(1).padStart(9)} ms ${((100 * micros) / all).toFixed(1).padStart(5)}%  ${key}`),
  ];
}

/** One profile holding the samples of all of `profiles` (node ids renumbered so they stay unique). */
export function mergeProfiles(profiles: readonly CpuProfile[]): CpuProfile {
  const merged: Required<CpuProfile> = { nodes: [], samples: [], timeDeltas: [] };
  let offset = 0;
  for (const profile of profiles) {
    let highest = 0;
    for (const node of profile.nodes) {
      merged.nodes.push({ ...node, id: node.id + offset, ...(node.children ? { children: node.children.map((child) => child + offset) } : {}) });
      highest = Math.max(highest, node.id);
    }
    for (const sample of profile.samples ?? []) merged.samples.push(sample + offset);
    for (const delta of profile.timeDeltas ?? []) merged.timeDeltas.push(delta);
    offset += highest;
  }
  return merged;
}

/** The summary as lines: sampled total, self time per package, inclusive time per package, self time per function. */
export function summariseProfile(profile: CpuProfile, top = DEFAULT_TOP): string[] {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);

  // Packages on each node's stack (itself and its ancestors), for inclusive time.
  const stackPackages = new Map<number, Set<string>>();
  const packagesOnStack = (id: number): Set<string> => {
    const known = stackPackages.get(id);
    if (known) return known;
    const node = byId.get(id);
    const parent = parentOf.get(id);
    const set = new Set(parent === undefined ? [] : packagesOnStack(parent));
    if (node) set.add(packageOf(node.callFrame.url));
    stackPackages.set(id, set);
    return set;
  };

  const byFunction = new Map<string, number>();
  const bySelfPackage = new Map<string, number>();
  const byInclusivePackage = new Map<string, number>();
  let all = 0;
  const samples = profile.samples ?? [];
  samples.forEach((id, index) => {
    const node = byId.get(id);
    const delta = profile.timeDeltas?.[index] ?? 0;
    // Samples taken while the inspector itself works (stopping, serialising) are not the workload's.
    if (!node || packagesOnStack(id).has(INSPECTOR)) return;
    all += delta;
    const { functionName, url, lineNumber } = node.callFrame;
    const fn = `${functionName || "(anonymous)"} ${shortUrl(url)}:${lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + delta);
    const pkg = packageOf(url);
    bySelfPackage.set(pkg, (bySelfPackage.get(pkg) ?? 0) + delta);
    for (const onStack of packagesOnStack(id)) if (onStack !== NATIVE) byInclusivePackage.set(onStack, (byInclusivePackage.get(onStack) ?? 0) + delta);
  });
  return [
    `total sampled ${(all / 1000).toFixed(0)} ms`,
    ...formatTop("self time by package", bySelfPackage, all, top),
    ...formatTop("inclusive time by package (a sample counts for every package on its stack; native frames left out)", byInclusivePackage, all, top),
    ...formatTop("self time by function", byFunction, all, top),
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, topArg] = process.argv.slice(2);
  if (!file) throw new Error("usage: summarise-profile.ts FILE.cpuprofile [TOP]");
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  process.stdout.write(`${summariseProfile(profile, topArg ? Number(topArg) : DEFAULT_TOP).join("\n")}\n`);
}
