import { declareEvent, declareLongCall, declareRpc } from '../messaging/contract';
import type { ServiceHealthView } from '../messaging/health';
import type { Page } from '../backend/page-query.dto';
import {
  CreateProviderCommand,
  ListProvidersCommand,
  ProviderRefCommand,
  ProviderRuntimeQuery,
  SystemProviderQuery,
  TestProviderCommand,
  UpdateProviderCommand,
} from './provider-rpc.dto';
import { ProviderChangedEvent } from './provider.events';
import { PROVIDERS_STREAM, ProviderEvents, ProviderSubjects } from './provider.subjects';
import type { ProviderRuntime, ProviderTestResult, ProviderView, SystemProviderView } from './provider.views';

/** The providers service's requests: payload class and reply of each subject. */
export const ProviderRpc = {
  listSystem: declareRpc(ProviderSubjects.listSystem, SystemProviderQuery).returns<{
    providers: SystemProviderView[];
  }>(),
  getSystem: declareRpc(ProviderSubjects.getSystem, ProviderRefCommand).returns<{ provider: SystemProviderView }>(),
  // Long calls: with `test: true` they run the provider's test (a workflow may retry for a while) before saving.
  create: declareLongCall(ProviderSubjects.create, CreateProviderCommand).returns<{ id: string }>(),
  list: declareRpc(ProviderSubjects.list, ListProvidersCommand).returns<Page<'providers', ProviderView>>(),
  get: declareRpc(ProviderSubjects.get, ProviderRefCommand).returns<{ provider: ProviderView }>(),
  update: declareLongCall(ProviderSubjects.update, UpdateProviderCommand).returns<{ provider: ProviderView }>(),
  delete: declareRpc(ProviderSubjects.delete, ProviderRefCommand).returns<Record<string, never>>(),
  /** A long call: a provider's workflow may retry with backoff for longer than RPC_TIMEOUT_MS. */
  test: declareLongCall(ProviderSubjects.test, TestProviderCommand).returns<ProviderTestResult>(),
  runtime: declareRpc(ProviderSubjects.runtime, ProviderRuntimeQuery).returns<ProviderRuntime>(),
  health: declareRpc(ProviderSubjects.health).returns<ServiceHealthView>(),
} as const;

export const ProviderEventContracts = {
  changed: declareEvent(ProviderEvents.changed, ProviderChangedEvent, PROVIDERS_STREAM),
} as const;
