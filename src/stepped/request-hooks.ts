/**
 * The hooks a model request calls (`transformContext`, `convertToLlm`, `getApiKey`),
 * each behind a nested gate: with `requestHooks: true`, a stepped request parks
 * before each of them, inside the request's own effect.
 */
import type { AgentLoopConfig } from "../types.js";
import type { PendingEffect } from "./pending-effect.js";

/** Parks an effect nested in the running request; resolves when it is released. */
export type ParkNested = (effect: PendingEffect) => Promise<void>;

/**
 * `config` with each request hook it has awaiting `park` first; the other fields as
 * given. A hook that is not a function stays as given, so the loop's input check
 * still names it.
 */
export function withParkedRequestHooks(config: AgentLoopConfig, park: ParkNested): AgentLoopConfig {
  const { transformContext, convertToLlm, getApiKey } = config;
  return {
    ...config,
    ...(typeof convertToLlm === "function"
      ? {
          convertToLlm: async (messages) => {
            await park({ kind: "hook", name: "convertToLlm" });
            return convertToLlm(messages);
          },
        }
      : {}),
    ...(typeof transformContext === "function"
      ? {
          transformContext: async (messages, signal) => {
            await park({ kind: "hook", name: "transformContext" });
            return transformContext(messages, signal);
          },
        }
      : {}),
    ...(typeof getApiKey === "function"
      ? {
          getApiKey: async (provider) => {
            await park({ kind: "hook", name: "getApiKey" });
            return getApiKey(provider);
          },
        }
      : {}),
  };
}
