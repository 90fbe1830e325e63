import type { Page } from '../backend/page-query.dto';
import { declareEvent, declareRpc } from '../messaging/contract';
import { PROJECTS_STREAM } from '../projects/projects.subjects';
import type { MessageResponse } from '../projects/projects.views';
import {
  ApiKeyIdCommand,
  ApiKeyRevokedEvent,
  CreateApiKeyCommand,
  ListApiKeysCommand,
  ResolveApiKeyQuery,
} from './api-key.dto';
import { ApiKeyEvents, ApiKeySubjects } from './api-key.subjects';
import type { ApiKeyCreated, ApiKeyView, ResolvedApiKey } from './api-key.views';

/** The API keys' requests, kept by the projects service: payload class and reply of each subject. */
export const ApiKeyRpc = {
  create: declareRpc(ApiKeySubjects.create, CreateApiKeyCommand).returns<{ token: ApiKeyCreated }>(),
  list: declareRpc(ApiKeySubjects.list, ListApiKeysCommand).returns<Page<'tokens', ApiKeyView>>(),
  get: declareRpc(ApiKeySubjects.get, ApiKeyIdCommand).returns<{ token: ApiKeyView }>(),
  delete: declareRpc(ApiKeySubjects.delete, ApiKeyIdCommand).returns<MessageResponse>(),
  resolve: declareRpc(ApiKeySubjects.resolve, ResolveApiKeyQuery).returns<ResolvedApiKey>(),
} as const;

export const ApiKeyEventContracts = {
  revoked: declareEvent(ApiKeyEvents.revoked, ApiKeyRevokedEvent, PROJECTS_STREAM),
} as const;
