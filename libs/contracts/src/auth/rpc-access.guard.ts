import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { DomainError } from '../errors/domain-error';
import { ErrorCode } from '../errors/error-code';
import { isPrincipal } from './principal';
import { refusal } from './access-policy';
import { RPC_POLICY } from './rpc-policy';

/**
 * The one check every service makes on every NATS request: the subject's rule in RPC_POLICY applied
 * to the principal the request carries. A subject with no rule is refused; services write no
 * authorization checks of their own (only which rows a project-scoped principal sees).
 */
@Injectable()
export class RpcAccessGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'rpc') return true;
    const rpc = context.switchToRpc();
    const subject = rpc.getContext<{ getSubject?: () => string }>().getSubject?.() ?? '';
    const rule = RPC_POLICY[subject];
    if (!rule) throw DomainError.permissionDenied(`no access rule for ${subject}`);
    if ('internal' in rule) return true;
    const principal = (rpc.getData() as { principal?: unknown } | null)?.principal;
    if (!isPrincipal(principal))
      throw new DomainError(ErrorCode.UNAUTHENTICATED, 'the request carries no valid principal');
    const why = refusal(rule, principal);
    if (why) throw DomainError.permissionDenied(why);
    return true;
  }
}
