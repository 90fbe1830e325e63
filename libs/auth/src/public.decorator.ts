import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'bastion:public';

/** Marks a route that needs no bearer token (health, docs, JWKS, site registration). */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC, true);
