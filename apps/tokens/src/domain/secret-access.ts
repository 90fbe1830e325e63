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
