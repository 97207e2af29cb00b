import { createTypeScriptImportResolver } from "eslint-import-resolver-typescript";
import { importX } from "eslint-plugin-import-x";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["**/dist/**", "**/node_modules/**", "**/*.js", "**/fixtures/**", "**/vitest.config.ts"] },
  ...tseslint.configs.recommended,
  {
    files: ["**/*.ts"],
    plugins: { "import-x": importX },
    // one type program over every file (tsconfig.lint.json): a program per package re-read the
    // others' declarations each time (lint 49 s, 36 s so, on CI's 2 cores)
    languageOptions: { parserOptions: { project: "./tsconfig.lint.json", tsconfigRootDir: import.meta.dirname } },
    settings: {
      // import-x reads only .js files unless told: our sources are .ts imported as .js
      "import-x/extensions": [".ts", ".js"],
      "import-x/parsers": { "@typescript-eslint/parser": [".ts"] },
      "import-x/resolver-next": [createTypeScriptImportResolver({ project: `${import.meta.dirname}/tsconfig.tests.json` })],
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-console": "error",
      // a package is reached by its name and exports map, never by a path out of its folder
      "import-x/no-relative-packages": "error",
      "no-restricted-imports": [
        "error",
        { patterns: [{ group: ["@warden/*/src/**", "@warden/*/dist/**"], message: "import the package by name: add what you need to its exports" }] },
      ],
      // within a package (other packages are built .d.ts, their cycles are turbo's to refuse)
      "import-x/no-cycle": ["error", { ignoreExternal: true }],
    },
  },
  { files: ["cli/**/*.ts", "bench/**/*.ts"], rules: { "no-console": "off" } },
);
