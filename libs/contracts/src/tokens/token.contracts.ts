import { declareEvent, declareRpc } from '../messaging/contract';
import type { ServiceHealthView } from '../messaging/health';
import {
  CloudInitCommand,
  DeleteRegistrationCommand,
  ListRegistrationsCommand,
  RegisterSiteCommand,
  RegistrationsByTokenCommand,
} from '../registrations/registration.dto';
import type { Jwks, RegistrationListResponse, RegistrationObject } from '../registrations/registration.views';
import {
  CreateTokenCommand,
  DeleteTokenCommand,
  GetTokenCommand,
  ListTokensQueryCommand,
  ReplaceTokenCommand,
  SetTokenStateCommand,
} from './token-rpc.dto';
import {
  SiteAdmissionEvent,
  TokenCreatedEvent,
  TokenDeletedEvent,
  TokenReplacedEvent,
  TokenStateChangedEvent,
} from './token.events';
import { TOKENS_ADMISSIONS_STREAM, TOKENS_STREAM, TokenEvents, TokenSubjects } from './token.subjects';
import type {
  TokenCreateResponse,
  TokenGetResponse,
  TokenListResponse,
  TokenObjectChangeResponse,
} from './token.views';

/** The tokens service's requests: payload class and reply of each subject. */
export const TokenRpc = {
  create: declareRpc(TokenSubjects.create, CreateTokenCommand).returns<TokenCreateResponse>(),
  replace: declareRpc(TokenSubjects.replace, ReplaceTokenCommand).returns<Record<string, never>>(),
  list: declareRpc(TokenSubjects.list, ListTokensQueryCommand).returns<TokenListResponse>(),
  get: declareRpc(TokenSubjects.get, GetTokenCommand).returns<TokenGetResponse>(),
  delete: declareRpc(TokenSubjects.delete, DeleteTokenCommand).returns<Record<string, never>>(),
  setState: declareRpc(TokenSubjects.setState, SetTokenStateCommand).returns<TokenObjectChangeResponse>(),
  cloudInit: declareRpc(TokenSubjects.cloudInit, CloudInitCommand).returns<{ cloud_init_config: string }>(),
  register: declareRpc(TokenSubjects.register, RegisterSiteCommand).returns<RegistrationObject>(),
  listRegistrations: declareRpc(
    TokenSubjects.listRegistrations,
    ListRegistrationsCommand,
  ).returns<RegistrationListResponse>(),
  deleteRegistration: declareRpc(TokenSubjects.deleteRegistration, DeleteRegistrationCommand).returns<
    Record<string, never>
  >(),
  registrationsByToken: declareRpc(
    TokenSubjects.registrationsByToken,
    RegistrationsByTokenCommand,
  ).returns<RegistrationListResponse>(),
  jwks: declareRpc(TokenSubjects.jwks).returns<Jwks>(),
  health: declareRpc(TokenSubjects.health).returns<ServiceHealthView>(),
} as const;

/** The tokens service's events: token changes in `TOKENS`, admissions in `TOKENS_ADMISSIONS`. */
export const TokenEventContracts = {
  created: declareEvent(TokenEvents.created, TokenCreatedEvent, TOKENS_STREAM),
  replaced: declareEvent(TokenEvents.replaced, TokenReplacedEvent, TOKENS_STREAM),
  deleted: declareEvent(TokenEvents.deleted, TokenDeletedEvent, TOKENS_STREAM),
  stateChanged: declareEvent(TokenEvents.stateChanged, TokenStateChangedEvent, TOKENS_STREAM),
  siteAdmitted: declareEvent(TokenEvents.siteAdmitted, SiteAdmissionEvent, TOKENS_ADMISSIONS_STREAM),
  siteRefused: declareEvent(TokenEvents.siteRefused, SiteAdmissionEvent, TOKENS_ADMISSIONS_STREAM),
} as const;
