// What tests and tooling may import from the prompts service.
export { PromptsConfig } from './config';
export { PromptsModule } from './prompts.module';
export { PROMPTS_STORE_DURABLE } from './store/prompt-record.consumer';
