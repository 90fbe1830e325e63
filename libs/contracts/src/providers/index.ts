export * from './provider-rpc.dto';
export * from './provider.dto';
export * from './provider.events';
export * from './provider.subjects';
export * from './provider.views';
export * from './provider.contracts';
export * from './provider.schemas';
