import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { DEMO_WORKSPACE_FILES } from "../providers/demo-script.js";

/**
 * Writes the files the `scripted/demo` script works on (`DEMO_WORKSPACE_FILES`) into
 * `dir`, so its calls succeed there as in `loopchart demo`. A file that exists already
 * is left as it is (never overwritten). Resolves to the paths written, relative to `dir`.
 */
export async function seedDemoWorkspace(dir: string): Promise<string[]> {
  const written: string[] = [];
  for (const [relative, content] of Object.entries(DEMO_WORKSPACE_FILES)) {
    const path = join(dir, relative);
    await mkdir(dirname(path), { recursive: true });
    try {
      await writeFile(path, content, { mode: relative.endsWith(".sh") ? 0o755 : 0o644, flag: "wx" });
      written.push(relative);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
  return written;
}
