import type { ScannerConfig } from '../config/scanner-config';
import { compileScanner } from './compile-scanner';
import type { CompileOptions, Scanner } from './scanner';

/** A scanner version as the cache knows it: ids and the config saved under them. */
export interface ScannerVersionRef {
  /** The scanner's id. */
  readonly id: string;
  /** The version's id (or number); a new version is a new config. */
  readonly version: string;
  readonly config: ScannerConfig | Readonly<Record<string, unknown>>;
}

/** Compiled scanners a process keeps (each holds RE2 programs; the largest allowed is a few MB). */
export const COMPILE_CACHE_SIZE = 2_000;

/**
 * Compiled scanners by scanner id and version, least recently used dropped first. Compiling RE2
 * programs costs far more than a scan, so every scanner version compiles once per process,
 * whoever asks: the proxy for a request, the projects service for /scans and dataset evaluation.
 * A failed compile is cached too (as its Error), so a config that cannot compile costs its compile
 * once, not once per request.
 *
 * A version's config never changes, but if a caller ever passes a different config under the same
 * ids it gets that config compiled (in place of the other), not a stale one: an entry keeps its
 * config's JSON, compared on every hit. The JSON is computed once per config object (a config is
 * not changed once loaded), not per lookup: for a large config it costs more than the lookup itself.
 */
export class CompiledScannerCache {
  private readonly entries = new Map<string, { json: string; compiled: Scanner | Error }>();
  private readonly json = new WeakMap<object, string>();
  private compiles = 0;

  constructor(
    readonly maxEntries = COMPILE_CACHE_SIZE,
    private readonly options: CompileOptions = {},
    private readonly compile: (config: ScannerConfig, options: CompileOptions) => Scanner = compileScanner,
  ) {}

  /** The compiled scanner, or the Error saying why it cannot run (a `custom` type, an invalid config). */
  get(ref: ScannerVersionRef): Scanner | Error {
    const key = `${ref.id}\u0000${ref.version}`;
    const json = this.jsonOf(ref.config);
    const hit = this.entries.get(key);
    // Re-inserted either way: a Map iterates in insertion order, so the first key is the least recently used.
    this.entries.delete(key);
    if (hit !== undefined && hit.json === json) {
      this.entries.set(key, hit);
      return hit.compiled;
    }
    let compiled: Scanner | Error;
    this.compiles++;
    try {
      compiled = this.compile(ref.config as ScannerConfig, this.options);
    } catch (err) {
      compiled = err instanceof Error ? err : new Error(String(err));
    }
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { json, compiled });
    return compiled;
  }

  /** The compiled scanner (or its Error) when this cache holds it for this config; never compiles. */
  peek(ref: ScannerVersionRef): Scanner | Error | undefined {
    const hit = this.entries.get(`${ref.id}\u0000${ref.version}`);
    return hit !== undefined && hit.json === this.jsonOf(ref.config) ? hit.compiled : undefined;
  }

  private jsonOf(config: object): string {
    let json = this.json.get(config);
    if (json === undefined) {
      json = JSON.stringify(config);
      this.json.set(config, json);
    }
    return json;
  }

  /** How many compiles this cache has run (for tests and metrics). */
  get compileCount(): number {
    return this.compiles;
  }

  get size(): number {
    return this.entries.size;
  }
}

/** The process's shared cache: the proxy and the projects service both use this one. */
export const sharedScannerCache = new CompiledScannerCache();
