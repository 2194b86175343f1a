import { describe, expect, it } from "vitest";
import { streamSimple } from "@mariozechner/pi-ai";
import type { StreamFn } from "../../src/index.js";
import { runPiProgram } from "./pi-program.js";

describe("pi-agent-core compatibility", () => {
  it("runs a pi program (tools, hooks, a custom message kind) with only its import changed", async () => {
    const { log, messages, sawReminder } = await runPiProgram();
    expect(sawReminder).toBe(true);
    expect(log).toEqual([
      'before weather {"city":"Oslo","days":3}',
      'progress [{"type":"text","text":"looking up Oslo"}]',
      "after isError=false",
      'tool weather ok {"city":"Oslo","audited":true}',
      "end 4",
    ]);
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
  });

  it("accepts pi-ai's streamSimple as a StreamFn (checked by the type checker)", () => {
    const fn: StreamFn = streamSimple;
    expect(typeof fn).toBe("function");
  });
});
