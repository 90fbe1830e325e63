import { MessagePattern } from '@nestjs/microservices';
import type { EventContract, RpcContract, StreamContract } from '@bastion/contracts';
import type { Observable } from 'rxjs';

/**
 * Marks a controller method as the handler of a declared subject (`@MessagePattern` on the
 * contract's subject), and of the `twins` given after it: the same request on other subjects (a
 * lane of its own, such as the message proxy's bulk lane). The method's first parameter must accept
 * the contract's payload and its result must be the contract's reply (or, for a stream, an
 * Observable of its frames), or the decorator does not compile.
 */
export function Handles<P, R>(
  contract: RpcContract<P, R>,
  ...twins: RpcContract<P, R>[]
): <M extends (payload: P, ...rest: never[]) => R | Promise<R>>(
  target: object,
  key: string | symbol,
  descriptor: TypedPropertyDescriptor<M>,
) => void;
export function Handles<P, F>(
  contract: StreamContract<P, F>,
  ...twins: StreamContract<P, F>[]
): <M extends (payload: P, ...rest: never[]) => Observable<F>>(
  target: object,
  key: string | symbol,
  descriptor: TypedPropertyDescriptor<M>,
) => void;
export function Handles(...contracts: (RpcContract<unknown, unknown> | StreamContract<unknown, unknown>)[]) {
  const pattern = MessagePattern(contracts.map((c) => c.subject));
  return (target: object, key: string | symbol, descriptor: PropertyDescriptor) => {
    pattern(target, key, descriptor);
  };
}

/**
 * The stream, subjects and payload class a durable consumer of these events takes, so its handler
 * receives the events' declared payload: `DurableConsumer.start(nc, { ...consumes(E.a, E.b), ... })`.
 */
export function consumes<P extends object>(
  ...events: [EventContract<P>, ...EventContract<P>[]]
): { stream: string; subjects: string[]; payload: new () => P } {
  return {
    stream: events[0].stream,
    subjects: events.map((e) => e.subject),
    payload: events[0].payload as unknown as new () => P,
  };
}
