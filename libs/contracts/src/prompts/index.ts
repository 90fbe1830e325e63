export * from './prompt-record.event';
export * from './prompt-rpc.dto';
export * from './prompt.subjects';
export * from './prompt.views';
export * from './prompt.contracts';
export * from './scan.schemas';
