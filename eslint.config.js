import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "bench/node_modules/**", "visualizations/viewer/vendor/**", "coverage/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: "readonly", console: "readonly", setTimeout: "readonly", clearTimeout: "readonly", setInterval: "readonly", clearInterval: "readonly", queueMicrotask: "readonly", Buffer: "readonly", AbortController: "readonly", AbortSignal: "readonly", URL: "readonly", TextDecoder: "readonly", TextEncoder: "readonly", performance: "readonly", structuredClone: "readonly", fetch: "readonly", Response: "readonly", Request: "readonly", Headers: "readonly", setImmediate: "readonly" },
    },
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_" }],
      "no-restricted-syntax": ["error", { selector: "ExportDefaultDeclaration", message: "Use named exports only." }],
    },
  },
  {
    files: ["eslint.config.js", "vitest.config.ts", "bench/vitest.config.ts"],
    rules: { "no-restricted-syntax": "off" },
  },
);
