import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The `version` of loopchart's own package.json, found by walking up from this file
 * (it sits at a different depth in `src/` and in `dist/src/`). Throws if none is found.
 */
export function readPackageVersion(): string {
  let directory = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(directory, "package.json");
    if (existsSync(candidate)) {
      const manifest = JSON.parse(readFileSync(candidate, "utf8")) as { name?: unknown; version?: unknown };
      if (manifest.name === "loopchart" && typeof manifest.version === "string") return manifest.version;
    }
    const parent = dirname(directory);
    if (parent === directory) throw new Error("loopchart's package.json was not found above " + fileURLToPath(import.meta.url));
    directory = parent;
  }
}
