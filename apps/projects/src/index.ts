// What tests and tooling may import from the projects service.
export { ProjectsConfig } from './config';
export { ProjectsModule, PROJECTS_STREAM_SPEC } from './projects.module';
