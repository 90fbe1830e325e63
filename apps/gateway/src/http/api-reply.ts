import { ApiOkResponse } from '@nestjs/swagger';
import type { HttpBodies, HttpBodyName } from '@bastion/contracts';

/**
 * Documents a route's 200 body as the named schema (`components.schemas[name]`, generated from the
 * type of the same name in `HttpBodies`), and checks when compiled that the route returns that type.
 */
export function ApiReply<K extends HttpBodyName>(
  name: K,
): <M extends (...args: never[]) => HttpBodies[K] | Promise<HttpBodies[K]>>(
  target: object,
  key: string | symbol,
  descriptor: TypedPropertyDescriptor<M>,
) => void {
  const doc = ApiOkResponse({ schema: { $ref: `#/components/schemas/${name}` } });
  return (target, key, descriptor) => {
    doc(target, key, descriptor);
  };
}
