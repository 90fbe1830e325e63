export * from './project-runtime';
export * from './proxy.dto';
export * from './proxy.subjects';
export * from './proxy.contracts';
