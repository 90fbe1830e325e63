import { declareRpc, type RpcContract } from '@bastion/contracts';

/**
 * A request contract on any subject with any payload, for tests that send what a typed caller
 * could not (an invalid payload, a made-up subject) to see how the receiver answers.
 */
export function untypedRpc<R = unknown>(subject: string): RpcContract<unknown, R> {
  return declareRpc<unknown>(subject).returns<R>();
}
