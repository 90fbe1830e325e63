import { createHash } from 'node:crypto';
import { type Principal, refusal, rpcRule, TokenSubjects } from '@bastion/contracts';

/**
 * Whether the caller may read tokens' admission secrets: a NORMAL token's uid (what a site presents
 * to registerBootstrap) and a JWT token's JWT (`spec.content`). Exactly the callers the
 * authorization policy lets create a token: one who may mint an admission credential gains nothing
 * by reading one, and anyone else (a viewer) would gain the power to admit a site.
 */
export function readsAdmissionSecrets(principal: Principal): boolean {
  return refusal(rpcRule(TokenSubjects.create), principal) === null;
}

/**
 * What a caller who may not read admission secrets sees in place of a token's uid: a UUID derived
 * from it one way (SHA-256), so each token keeps an identity of its own in their reads (a client
 * that keys objects by uid does not take every token for one), the same in every read of it (a
 * registration's token_uid names the token its list showed), and admits nothing.
 */
export function uidStandIn(uid: string): string {
  const h = createHash('sha256').update(`bastion-token-uid:${uid}`).digest('hex');
  const variant = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
