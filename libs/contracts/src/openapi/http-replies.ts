import type { Page } from '../backend/page-query.dto';
import type { FieldViolation } from '../errors/domain-error';
import type { ServiceHealthView } from '../messaging/health';
import type {
  DatasetRunView,
  MessageResponse,
  PackageView,
  ProjectView,
  ScannerCreateResponse,
  ScannerUpdateResponse,
  ScannerVersionView,
  ScannerView,
} from '../projects/projects.views';
import type { PromptTemplateView, PromptView } from '../prompts/prompt.views';
import type { ProviderTestResult, ProviderView, SystemProviderView } from '../providers/provider.views';
import type { Jwks, RegistrationListResponse, RegistrationObject } from '../registrations/registration.views';
import type { ApiKeyCreated, ApiKeyView } from '../keys/api-key.views';
import type {
  TokenCreateResponse,
  TokenGetResponse,
  TokenListResponse,
  TokenObjectChangeResponse,
} from '../tokens/token.views';

/*
 * The HTTP API's bodies, by the name its OpenAPI document gives them. `pnpm schemas:http` turns
 * `HttpBodies` into JSON schemas (`http-bodies.schema.ts`), which the gateway serves as
 * `components.schemas`; `@ApiReply(name)` on a route both documents its 200 body and checks, when
 * compiled, that the route returns that type.
 */

export type ScannerPage = Page<'scanners', ScannerView>;
export type ScannerVersionPage = Page<'versions', ScannerVersionView>;
export type DatasetRunPage = Page<'datasetRuns', DatasetRunView>;
export type PackagePage = Page<'packages', PackageView>;
export type ProjectPage = Page<'projects', ProjectView>;
export type ProviderPage = Page<'providers', ProviderView>;
/** `POST /backend/v1/tokens`: the new key, its value shown only here. */
export interface ApiKeyCreateResponse {
  token: ApiKeyCreated;
}
export type ApiKeyPage = Page<'tokens', ApiKeyView>;
export interface ApiKeyReply {
  token: ApiKeyView;
}
/** `GET /backend/v1/users/me`: the caller, a user (JWT) or an API key. */
export interface UserReply {
  user: { id: string; email: string | null; tenant: string; roles: string[]; projectId: string | null; kind: string };
}
/** A Chat Completion (`/openai/{provider}/chat/completions` without `stream`). */
export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: {
    index: number;
    message: {
      role: 'assistant';
      content: string | null;
      tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
      refusal: null;
    };
    logprobs: null;
    finish_reason: string;
  }[];
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}
export type PromptPage = Page<'prompts', PromptView>;

export interface ScannerReply {
  scanner: ScannerView;
}
export interface ScannerVersionReply {
  version: ScannerVersionView;
}
export interface DatasetRunReply {
  datasetRun: DatasetRunView;
}
export interface ProjectReply {
  project: ProjectView;
}
export interface SystemProviderList {
  providers: SystemProviderView[];
}
export interface SystemProviderReply {
  provider: SystemProviderView;
}
export interface ProviderReply {
  provider: ProviderView;
}
export interface ProviderCreateResponse {
  id: string;
}
export interface PromptReply {
  prompt: PromptView;
}
export interface PromptTemplateReply {
  promptTemplate: PromptTemplateView;
}
export interface PromptTemplateDetail {
  promptTemplate: PromptTemplateView;
  prompts: PromptView[];
}
export interface CloudInitResponse {
  cloud_init_config: string;
}
/** An empty object: the change was made. */
export type EmptyResponse = Record<string, never>;

export interface LivenessView {
  status: string;
}
/** Every service's health, as `/healthz` (and `/readyz` without `?self`) report it. */
export interface PlatformHealthView {
  status: 'ok' | 'degraded';
  services: Record<string, ServiceHealthView | { status: string; error: string }>;
}

/** The error body of the token and admission APIs (`google.rpc.Status`). */
export interface TokenApiError {
  /** The gRPC status code. */
  code: number;
  details: { '@type': string; field_violations: { field: string; description: string }[] }[];
  message: string;
}
/** The error body of `/backend/v1` routes: the field violations (422), or a message. */
export interface BackendApiError {
  detail: FieldViolation[] | string;
}
/** The error body of the Anthropic-compatible routes (`/vendor/...`). */
export interface AnthropicApiError {
  type: 'error';
  error: { type: string; message: string; cai_error?: unknown };
}

/** The error body of the OpenAI-compatible route (`/openai/...`). */
export interface OpenAiApiError {
  error: { message: string; type: string; param: string | null; code: string | null; cai_error?: unknown };
}

/** Every named body of the HTTP API. */
export interface HttpBodies {
  ScannerCreateResponse: ScannerCreateResponse;
  ScannerPage: ScannerPage;
  ScannerReply: ScannerReply;
  ScannerUpdateResponse: ScannerUpdateResponse;
  MessageResponse: MessageResponse;
  ScannerVersionPage: ScannerVersionPage;
  ScannerVersionReply: ScannerVersionReply;
  DatasetRunReply: DatasetRunReply;
  DatasetRunPage: DatasetRunPage;
  PackagePage: PackagePage;
  ProjectReply: ProjectReply;
  ProjectPage: ProjectPage;
  SystemProviderList: SystemProviderList;
  SystemProviderReply: SystemProviderReply;
  ProviderTestResult: ProviderTestResult;
  ProviderCreateResponse: ProviderCreateResponse;
  ProviderPage: ProviderPage;
  ApiKeyCreateResponse: ApiKeyCreateResponse;
  ApiKeyPage: ApiKeyPage;
  ApiKeyReply: ApiKeyReply;
  UserReply: UserReply;
  ChatCompletion: ChatCompletion;
  ProviderReply: ProviderReply;
  EmptyResponse: EmptyResponse;
  PromptPage: PromptPage;
  PromptReply: PromptReply;
  PromptTemplateReply: PromptTemplateReply;
  PromptTemplateDetail: PromptTemplateDetail;
  PromptView: PromptView;
  TokenCreateResponse: TokenCreateResponse;
  TokenListResponse: TokenListResponse;
  TokenGetResponse: TokenGetResponse;
  TokenObjectChangeResponse: TokenObjectChangeResponse;
  RegistrationObject: RegistrationObject;
  RegistrationListResponse: RegistrationListResponse;
  CloudInitResponse: CloudInitResponse;
  Jwks: Jwks;
  LivenessView: LivenessView;
  ServiceHealthView: ServiceHealthView;
  PlatformHealthView: PlatformHealthView;
  TokenApiError: TokenApiError;
  BackendApiError: BackendApiError;
  AnthropicApiError: AnthropicApiError;
  OpenAiApiError: OpenAiApiError;
}

export type HttpBodyName = keyof HttpBodies;
