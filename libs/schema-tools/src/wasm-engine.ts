import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type * as SE from '@prisma/schema-engine-wasm';

type WasmExports = Record<string, unknown>;
type Bindings = typeof SE & { __wbg_set_wasm(exports: WasmExports): void };

/** The little of the WebAssembly global this file uses (the project's TS libs do not declare it). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: Record<string, Record<string, unknown>>) => { exports: WasmExports };
}
const { Module, Instance } = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
let bindings: Bindings | undefined;

/**
 * Loads Prisma's schema engine compiled to WebAssembly. The package's entry imports the .wasm file
 * as an ES module, which Node does not do, so we instantiate it ourselves. The engine arms a
 * timer it never clears; unref'ing it lets the process exit when the work is done.
 */
export function loadSchemaEngine(): Bindings {
  if (bindings) return bindings;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const glue = require('@prisma/schema-engine-wasm/schema_engine_bg') as Bindings;
  const wasmPath = join(
    dirname(require.resolve('@prisma/schema-engine-wasm/schema_engine_bg')),
    'schema_engine_bg.wasm',
  );
  const imports: Record<string, unknown> = { ...glue };
  for (const key of Object.keys(imports)) {
    if (key.startsWith('__wbg_setTimeout_')) {
      imports[key] = (fn: () => void, ms: number) => {
        const t = setTimeout(fn, ms >>> 0);
        t.unref();
        return t;
      };
    }
  }
  const instance = new Instance(new Module(readFileSync(wasmPath)), { './schema_engine_bg.js': imports });
  glue.__wbg_set_wasm(instance.exports);
  (instance.exports.__wbindgen_start as (() => void) | undefined)?.();
  bindings = glue;
  return glue;
}
