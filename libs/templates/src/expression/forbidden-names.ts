/**
 * Names a template may never use as a bare identifier. None of them is reachable anyway (identifiers
 * resolve only to built-ins and scope entries), but refusing them up front turns an escape attempt
 * or a JavaScript habit into a clear validation error instead of a silent `undefined`.
 */
export const FORBIDDEN_IDENTIFIERS: ReadonlySet<string> = new Set([
  'globalThis',
  'global',
  'window',
  'self',
  'process',
  'require',
  'module',
  'exports',
  'eval',
  'Function',
  'Object',
  'Reflect',
  'Proxy',
  'Symbol',
  'Buffer',
  'arguments',
  'constructor',
  'prototype',
  '__proto__',
]);

/**
 * Property names that lead from data to the host's prototypes and constructors. Refused as property
 * reads and as object-literal keys, even where an object happens to own such a key.
 */
export const FORBIDDEN_PROPERTIES: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Names of `Object.prototype` members. Data objects have a null prototype so these are simply
 * missing, but reading one is almost surely an attempt to reach a host method: it is an error
 * unless the object owns the key.
 */
export const OBJECT_PROTOTYPE_NAMES: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));
