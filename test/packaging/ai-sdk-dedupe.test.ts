/**
 * A user's install gets one copy of `@ai-sdk/provider-utils`: every AI SDK package loopchart
 * depends on pins it exactly, so loopchart pins versions of them that pin the same one
 * (issue 29 item 10: caret ranges gave three copies). This reads what each installed
 * package asks for, so a dependency bump that splits them again fails here.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../cli/spawn-cli.js";

interface Manifest {
  version: string;
  dependencies?: Record<string, string>;
}

const manifest = (path: string): Manifest => JSON.parse(readFileSync(join(path, "package.json"), "utf8")) as Manifest;

describe("the AI SDK packages loopchart depends on", () => {
  const own = manifest(REPO_ROOT);
  const aiSdk = Object.keys(own.dependencies ?? {}).filter((name) => name === "ai" || name.startsWith("@ai-sdk/"));

  it("should be pinned to exact versions, as they pin @ai-sdk/provider-utils", () => {
    expect(aiSdk.length).toBeGreaterThan(1);
    expect(aiSdk.filter((name) => !/^\d+\.\d+\.\d+$/.test(own.dependencies?.[name] ?? ""))).toEqual([]);
  });

  it("should all ask for the same @ai-sdk/provider-utils, so an install has one copy", () => {
    // The two whose types loopchart's declarations name (src/providers/ai-sdk-types.ts) are pinned themselves.
    const typeSources = ["@ai-sdk/provider", "@ai-sdk/provider-utils"];
    const wanted = new Map<string, string>();
    for (const name of aiSdk.filter((dependency) => !typeSources.includes(dependency))) {
      const installed = manifest(join(REPO_ROOT, "node_modules", name));
      expect(installed.version).toBe(own.dependencies?.[name]);
      const utils = installed.dependencies?.["@ai-sdk/provider-utils"];
      if (utils !== undefined) wanted.set(name, utils);
    }
    expect(wanted.size).toBe(aiSdk.length - typeSources.length);
    expect([...new Set(wanted.values())]).toEqual([own.dependencies?.["@ai-sdk/provider-utils"]]);
  });
});
