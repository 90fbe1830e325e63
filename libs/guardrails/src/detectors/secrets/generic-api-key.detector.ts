import type { Detector } from '../detector';

const KEY_CHAR = /^[A-Za-z0-9_-]$/;
const PREFIX = /^(?:sk-|xox[a-z]-|AIza|[sr]k_live_)/;

/**
 * API keys of common services, recognised by prefix: OpenAI (sk-, sk-proj-, sk-svcacct-),
 * Anthropic (sk-ant-), Slack (xoxb-, xoxp-, ...), Google (AIza) and Stripe live keys (sk_live_,
 * rk_live_). The random part must hold a letter and a digit, which turns away look-alikes such as
 * "sk-your-api-key-goes-here" and "xoxo-hugs-and-kisses".
 */
export const genericApiKey: Detector<'generic-api-key'> = {
  id: 'generic-api-key',
  name: 'API key',
  description: 'API keys of OpenAI, Anthropic, Slack, Google and Stripe (live).',
  pattern: 'sk-[A-Za-z0-9_-]{20,}|xox[abeoprs]-[A-Za-z0-9-]{10,}|AIza[A-Za-z0-9_-]{35}|[sr]k_live_[A-Za-z0-9]{20,}',
  confirm(value, text, start) {
    const end = start + value.length;
    if (KEY_CHAR.test(text[start - 1] ?? '') || KEY_CHAR.test(text[end] ?? '')) return false;
    const secret = value.replace(PREFIX, '');
    return /[0-9]/.test(secret) && /[A-Za-z]/.test(secret);
  },
};
