/** Opens a URL in the user's browser (`loopchart view` without `--no-open`). */
import { spawn } from "node:child_process";

/** The command that opens a URL with the desktop's default browser, per platform. */
export function openerFor(platform: NodeJS.Platform = process.platform): { command: string; args: (url: string) => string[] } {
  if (platform === "darwin") return { command: "open", args: (url) => [url] };
  if (platform === "win32") return { command: "cmd", args: (url) => ["/c", "start", '""', url] };
  return { command: "xdg-open", args: (url) => [url] };
}

/**
 * Starts the platform's opener on `url`, detached, and returns at once; never throws. When
 * the opener cannot be started (no desktop, not installed), `onError` gets one sentence.
 */
export function openUrl(url: string, onError: (message: string) => void): void {
  const { command, args } = openerFor();
  try {
    const child = spawn(command, args(url), { detached: true, stdio: "ignore" });
    child.once("error", (error) => onError(`could not open a browser (${command}: ${error.message}); open ${url} yourself`));
    child.unref();
  } catch (error) {
    onError(`could not open a browser (${command}: ${(error as Error).message}); open ${url} yourself`);
  }
}
