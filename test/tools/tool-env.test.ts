/**
 * What a bash command's environment holds: everything of the process but the
 * provider key variables, unless kept by name; and the bash tool runs with it.
 */
import { describe, expect, it } from "vitest";
import { createBashTool } from "../../tools/bash.js";
import { toolEnvironment } from "../../tools/tool-env.js";
import { tempDirSync } from "../support/temp-dir.js";

const ENV = { PATH: process.env.PATH, OPENAI_API_KEY: "sk-a", ANTHROPIC_API_KEY: "sk-b", MY_SERVICE_API_KEY: "c", API_KEY: "d", APIKEYS: "e", HOME: "/home/x" };

describe("toolEnvironment", () => {
  it("should drop every *_API_KEY variable and keep the rest", () => {
    expect(toolEnvironment(ENV)).toEqual({ PATH: process.env.PATH, APIKEYS: "e", HOME: "/home/x" });
  });

  it("should keep the key variables named, and not change its input", () => {
    expect(toolEnvironment(ENV, ["ANTHROPIC_API_KEY"])).toEqual({ PATH: process.env.PATH, ANTHROPIC_API_KEY: "sk-b", APIKEYS: "e", HOME: "/home/x" });
    expect(ENV.OPENAI_API_KEY).toBe("sk-a");
  });
});

describe("the bash tool's environment", () => {
  it("should not give commands the provider keys unless keepEnv names them", async () => {
    const cwd = tempDirSync("loopchart-tool-env-");
    const command = { command: 'echo "[$OPENAI_API_KEY|$HOME]"' };
    const plain = await createBashTool(cwd, { env: ENV }).execute("c1", command);
    expect(plain.content).toEqual([{ type: "text", text: "[|/home/x]" }]);
    const kept = await createBashTool(cwd, { env: ENV, keepEnv: ["OPENAI_API_KEY"] }).execute("c2", command);
    expect(kept.content).toEqual([{ type: "text", text: "[sk-a|/home/x]" }]);
  });
});
