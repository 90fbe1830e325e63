import { declareRpc } from '../messaging/contract';
import type { ServiceHealthView } from '../messaging/health';
import type { Page } from '../backend/page-query.dto';
import {
  CreatePromptTemplateCommand,
  ListPromptsCommand,
  PromptRefCommand,
  TemplateInputQuery,
} from './prompt-rpc.dto';
import { PromptSubjects } from './prompt.subjects';
import type { PromptTemplateView, PromptView, TemplateInput, StoredScanView } from './prompt.views';

/** The prompts service's requests: payload class and reply of each subject. */
export const PromptRpc = {
  list: declareRpc(PromptSubjects.list, ListPromptsCommand).returns<Page<'prompts', PromptView>>(),
  get: declareRpc(PromptSubjects.get, PromptRefCommand).returns<{ prompt: PromptView }>(),
  getScan: declareRpc(PromptSubjects.getScan, PromptRefCommand).returns<{ scan: StoredScanView }>(),
  createTemplate: declareRpc(PromptSubjects.createTemplate, CreatePromptTemplateCommand).returns<{
    promptTemplate: PromptTemplateView;
  }>(),
  getTemplate: declareRpc(PromptSubjects.getTemplate, PromptRefCommand).returns<{
    promptTemplate: PromptTemplateView;
    prompts: PromptView[];
  }>(),
  templateInput: declareRpc(PromptSubjects.templateInput, TemplateInputQuery).returns<TemplateInput>(),
  health: declareRpc(PromptSubjects.health).returns<ServiceHealthView>(),
} as const;
