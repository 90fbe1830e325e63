// `pnpm lint`: typescript-eslint's recommended rules, unused code and import cycles as errors.
// Formatting is Prettier's job (`pnpm format:check`), not ESLint's.
import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import bastion from './scripts/eslint/folder-cycles.mjs';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/generated/**', '**/node_modules/**', 'coverage/**', '.data/**', '.stack/**'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    plugins: { 'import-x': importX, bastion },
    settings: { 'import-x/resolver-next': [createTypeScriptImportResolver({ project: 'tsconfig.json' })] },
    rules: {
      // A cycle between files is an error; node_modules (and so the libs, imported by name) are not followed.
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      // ... and so is one between the feature folders of an app (tokens/ <-> admission/),
      'bastion/no-folder-cycles': 'error',
      // ... or between libs (@bastion/messaging <-> @bastion/observability).
      'bastion/no-lib-cycles': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      '@typescript-eslint/no-unused-expressions': ['error', { allowTernary: true }],
    },
  },
  {
    // Tests read response bodies of any shape.
    files: ['test/**/*.ts', '**/*.spec.ts', '**/*.int-spec.ts', '**/*.e2e-spec.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: globals.node },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  { files: ['**/*.mjs'], languageOptions: { globals: globals.node } },
);
