export * from './project.dto';
export * from './projects-rpc.dto';
export * from './projects.events';
export * from './projects.subjects';
export * from './projects.views';
export * from './scanner.dto';
export * from './scanner.enums';
export * from './project.schemas';
