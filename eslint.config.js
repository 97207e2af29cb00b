import { createTypeScriptImportResolver } from "eslint-import-resolver-typescript";
import { importX } from "eslint-plugin-import-x";
import tseslint from "typescript-eslint";

const TESTS = ["**/*.test.ts", "test/**/*.ts", "scripts/**/*.ts", "services/*/test/**/*.ts", "services/*/test-support/**/*.ts", "libs/*/test-support/**/*.ts"];

export default tseslint.config(
  { ignores: ["**/dist/**", "**/node_modules/**", "**/*.js", "**/fixtures/**", "**/vitest.config.ts"] },
  ...tseslint.configs.recommended,
  {
    files: ["**/*.ts"],
    plugins: { "import-x": importX },
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
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
  {
    // test files and scripts/ are in no package's tsconfig (they are not built): type-check them with the tests' project
    files: TESTS,
    languageOptions: { parserOptions: { projectService: false, project: "./tsconfig.tests.json", tsconfigRootDir: import.meta.dirname } },
  },
  { files: ["cli/**/*.ts", "bench/**/*.ts"], rules: { "no-console": "off" } },
);
