/**
 * Thrown synchronously by {@link import("./provider-model.js").createProviderModel}
 * when its options cannot describe a usable provider (unknown provider, missing
 * base URL, malformed URL). The message names the fix.
 */
export class ProviderConfigError extends Error {
  override readonly name = "ProviderConfigError" as const;
}
