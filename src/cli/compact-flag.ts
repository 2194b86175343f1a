/**
 * `loopchart run --compact <setting>` / `--no-compact`: context compaction in the
 * CLI, on by default with the model's context window. `off` turns it off; `on`
 * (or nothing) keeps the defaults; `reserve=N,keep=N,window=N` sets
 * `reserveTokens`, `keepRecentTokens` and the window to compact for (`16k` = 16,000).
 */
import type { CompactionConfig } from "../compaction/compaction-settings.js";
import { UsageError } from "./usage-error.js";

/** The keys `--compact` takes, and the config field each sets. */
const KEYS: Readonly<Record<string, keyof Pick<CompactionConfig, "reserveTokens" | "keepRecentTokens" | "contextWindow">>> = {
  reserve: "reserveTokens",
  keep: "keepRecentTokens",
  window: "contextWindow",
};

const EXAMPLE = "e.g. --compact reserve=16k,keep=20k,window=128k, --compact off";

function tokens(key: string, text: string): number {
  const match = /^(\d+(?:\.\d+)?)(k?)$/i.exec(text.trim());
  const value = match ? Math.round(Number(match[1]) * (match[2] ? 1000 : 1)) : Number.NaN;
  if (!Number.isInteger(value) || value < (key === "window" ? 1 : 0)) {
    throw new UsageError(`--compact ${key}= expects a number of tokens (16000 or 16k), got "${text}"; ${EXAMPLE}`);
  }
  return value;
}

/** The compaction config of `--compact <value>` (false: off). Throws `UsageError` naming the problem. */
export function parseCompactFlag(value: string): CompactionConfig | false {
  const text = value.trim();
  if (text === "off") return false;
  if (text === "on" || text === "") return {};
  const config: CompactionConfig = {};
  for (const part of text.split(",")) {
    const [key, raw] = part.split("=", 2).map((piece) => piece.trim());
    const field = key !== undefined ? KEYS[key] : undefined;
    if (field === undefined || raw === undefined) {
      throw new UsageError(`--compact expects off, on, or reserve=N, keep=N, window=N separated by commas; got "${part}"; ${EXAMPLE}`);
    }
    config[field] = tokens(key as string, raw);
  }
  return config;
}

/** The run's compaction: `--no-compact` or `--compact off` turn it off; absent, on with the defaults. */
export function compactionOf(values: { compact?: string | boolean; "no-compact"?: string | boolean }): CompactionConfig | false | undefined {
  if (values["no-compact"] === true) {
    if (typeof values.compact === "string") throw new UsageError("Give either --compact <setting> or --no-compact, not both.");
    return false;
  }
  return typeof values.compact === "string" ? parseCompactFlag(values.compact) : undefined;
}
