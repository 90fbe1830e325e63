/** Request-reply subjects of the prompts service (queue group `prompts`). */
export const PromptSubjects = {
  list: 'prompts.prompt.list.v1',
  get: 'prompts.prompt.get.v1',
  /** A stored scan: a prompt record of type `scan` (PromptRefCommand -> {scan: StoredScanView}). */
  getScan: 'prompts.scan.get.v1',
  createTemplate: 'prompts.template.create.v1',
  getTemplate: 'prompts.template.get.v1',
  /** For the message proxy: what a prompt sent from a template says ({tenant, templateId} -> TemplateInput). */
  templateInput: 'prompts.template.input.v1',
  health: 'prompts.health.check.v1',
} as const;

export const PROMPTS_QUEUE = 'prompts';
