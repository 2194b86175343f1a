/** Minimal ANSI styling, a no-op when colour is off. */
export interface Style {
  green(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
  dim(text: string): string;
  bold(text: string): string;
}

const wrap = (open: number, close: number) => (text: string) => `\u001b[${open}m${text}\u001b[${close}m`;

/** Styles text with ANSI colours when `enabled`, otherwise returns it unchanged. */
export function createStyle(enabled: boolean): Style {
  if (!enabled) {
    const same = (text: string) => text;
    return { green: same, red: same, yellow: same, dim: same, bold: same };
  }
  return { green: wrap(32, 39), red: wrap(31, 39), yellow: wrap(33, 39), dim: wrap(2, 22), bold: wrap(1, 22) };
}

/** Whether to colour a stream: a TTY, and neither `NO_COLOR` set nor `TERM=dumb`. */
export function shouldColor(isTTY: boolean | undefined, env: NodeJS.ProcessEnv): boolean {
  return isTTY === true && !env.NO_COLOR && env.TERM !== "dumb";
}

/** `850ms`, `1.2s`, `2m05s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.floor((ms % 60_000) / 1000);
  return `${minutes}m${String(seconds).padStart(2, "0")}s`;
}

/** `1,234`. */
export function formatCount(value: number): string {
  return value.toLocaleString("en-US");
}

/** `$0.0123` — four decimals below a dollar, two above. */
export function formatCost(dollars: number): string {
  return dollars >= 1 ? `$${dollars.toFixed(2)}` : `$${dollars.toFixed(4)}`;
}

/** `1 turn`, `3 turns`. */
export function plural(count: number, noun: string): string {
  return `${formatCount(count)} ${noun}${count === 1 ? "" : "s"}`;
}
