// Loaded into Portkey OSS by the benchmark only (node --require). On Node 24, Portkey's Anthropic
// streaming path appends its x-portkey-* headers to (and deletes others from) a fetch Response whose headers are immutable,
// which throws and turns every streamed answer into a 500. This lets those changes be skipped so
// the peer can stream at all; the answer's body and status are untouched.
'use strict';
for (const method of ['append', 'set', 'delete']) {
  const original = Headers.prototype[method];
  Headers.prototype[method] = function (...args) {
    try {
      return original.apply(this, args);
    } catch (err) {
      if (err instanceof TypeError && err.message === 'immutable') return undefined;
      throw err;
    }
  };
}
