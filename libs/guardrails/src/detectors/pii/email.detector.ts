import type { Detector } from '../detector';

const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';

/** An address with a dotted domain and a letters-only top-level domain: not `user@host`, not `pkg@1.2.3`. */
export const email: Detector<'email'> = {
  id: 'email',
  name: 'E-mail address',
  description: 'E-mail addresses such as jane.doe@example.com.',
  pattern: `[A-Za-z0-9._%+-]+@${LABEL}(?:\\.${LABEL})*\\.[A-Za-z]{2,63}\\b`,
  confirm(value, _text, start) {
    const at = value.lastIndexOf('@');
    let local = value.slice(0, at);
    // The candidate swallows whatever address characters precede it ("see...jane@x.io"): keep only
    // what can be a local part, i.e. after the last "..", without leading dots.
    const cut = local.lastIndexOf('..');
    let offset = cut >= 0 ? cut + 2 : 0;
    while (local[offset] === '.') offset++;
    local = local.slice(offset);
    if (local === '' || local.endsWith('.') || local.length > 64 || value.length - offset > 254) return false;
    return [[start + offset, start + value.length]];
  },
};
