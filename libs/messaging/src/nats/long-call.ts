import { LONG_CALL_PING_MS, type LongCallFrame } from '@bastion/contracts';
import { Observable } from 'rxjs';

/**
 * Answers a long call (`declareLongCall`): a ping every `pingMs` while `work` runs, then its reply
 * (or its error). The first ping comes after `pingMs`, not at once: most calls are answered sooner
 * and then cost one message each way. A caller that gives up is not signalled: the work runs to its
 * end (a model call is still recorded), and the pings stop when it settles.
 */
export function answerLongCall<R>(work: () => Promise<R>, pingMs = LONG_CALL_PING_MS): Observable<LongCallFrame<R>> {
  return new Observable<LongCallFrame<R>>((subscriber) => {
    const pings = setInterval(() => subscriber.next({ ping: true }), pingMs);
    work().then(
      (reply) => {
        clearInterval(pings);
        subscriber.next({ reply });
        subscriber.complete();
      },
      (err: unknown) => {
        clearInterval(pings);
        subscriber.error(err);
      },
    );
    return () => clearInterval(pings);
  });
}
