import { readFileSync } from 'node:fs';

// The committed schemas are what the generator makes of the types today (run `pnpm schemas:http`
// after changing a body type).
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the generator is a plain script
const { generate, target } = require('../../../../scripts/gen-http-schemas.js') as {
  generate: () => string;
  target: string;
};

describe('HTTP body schemas', () => {
  it('match the types they are generated from', () => {
    expect(readFileSync(target, 'utf8')).toBe(generate());
  }, 120_000);
});
