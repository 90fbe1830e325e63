import 'reflect-metadata';
import type { ProjectView, TokenCreateResponse } from '@bastion/contracts';
import { ApiReply } from './api-reply';

// `pnpm typecheck` compiles this file: each `@ts-expect-error` must stay an error.
class Routes {
  @ApiReply('ProjectReply')
  get(): Promise<{ project: ProjectView }> {
    return Promise.resolve({ project: {} as ProjectView });
  }

  // @ts-expect-error the route returns a body other than the one it documents
  @ApiReply('ProjectReply')
  wrong(): Promise<TokenCreateResponse> {
    return Promise.resolve({} as TokenCreateResponse);
  }
}

describe('ApiReply', () => {
  it('documents the 200 body as the named component schema', () => {
    expect(Reflect.getMetadata('swagger/apiResponse', Routes.prototype.get)).toMatchObject({
      '200': { schema: { $ref: '#/components/schemas/ProjectReply' } },
    });
  });
});
