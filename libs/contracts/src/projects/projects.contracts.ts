import { declareEvent, declareRpc } from '../messaging/contract';
import type { ServiceHealthView } from '../messaging/health';
import type { Page } from '../backend/page-query.dto';
import type { ProjectRuntime } from '../proxy/project-runtime';
import {
  AttachGuardrailCommand,
  AttachProviderCommand,
  CreateProjectCommand,
  CreateScannerCommand,
  DetachCommand,
  EvaluateDatasetCommand,
  GetProjectCommand,
  ListEvaluationsCommand,
  ListPackagesCommand,
  ListProjectsCommand,
  ListScannersCommand,
  ListScannerVersionsCommand,
  ProjectIdCommand,
  ProjectRuntimeQuery,
  ScannerRefCommand,
  ScannerVersionRefCommand,
  StageDatasetCommand,
  UpdateGuardrailCommand,
  UpdateProjectCommand,
  UpdateProviderEntryCommand,
  UpdateScannerCommand,
  UpdateScannerVersionCommand,
  AttachByIdCommand,
  GlobalProjectCommand,
} from './projects-rpc.dto';
import { ProjectChangedEvent, ScannerChangedEvent } from './projects.events';
import { PROJECTS_STREAM, ProjectEvents, ProjectSubjects, ScannerSubjects } from './projects.subjects';
import type {
  DatasetRunView,
  MessageResponse,
  PackageView,
  ProjectView,
  ScannerCreateResponse,
  ScannerUpdateResponse,
  ScannerVersionView,
  ScannerView,
} from './projects.views';

type ProjectReply = { project: ProjectView };

/** The projects service's project requests: payload class and reply of each subject. */
export const ProjectRpc = {
  create: declareRpc(ProjectSubjects.create, CreateProjectCommand).returns<ProjectReply>(),
  list: declareRpc(ProjectSubjects.list, ListProjectsCommand).returns<Page<'projects', ProjectView>>(),
  get: declareRpc(ProjectSubjects.get, GetProjectCommand).returns<ProjectReply>(),
  update: declareRpc(ProjectSubjects.update, UpdateProjectCommand).returns<ProjectReply>(),
  delete: declareRpc(ProjectSubjects.delete, ProjectIdCommand).returns<MessageResponse>(),
  attachGuardrail: declareRpc(ProjectSubjects.attachGuardrail, AttachGuardrailCommand).returns<ProjectReply>(),
  updateGuardrail: declareRpc(ProjectSubjects.updateGuardrail, UpdateGuardrailCommand).returns<ProjectReply>(),
  attachProvider: declareRpc(ProjectSubjects.attachProvider, AttachProviderCommand).returns<ProjectReply>(),
  updateProvider: declareRpc(ProjectSubjects.updateProvider, UpdateProviderEntryCommand).returns<ProjectReply>(),
  detach: declareRpc(ProjectSubjects.detach, DetachCommand).returns<ProjectReply>(),
  attachById: declareRpc(ProjectSubjects.attachById, AttachByIdCommand).returns<ProjectReply>(),
  global: declareRpc(ProjectSubjects.global, GlobalProjectCommand).returns<ProjectReply>(),
  runtime: declareRpc(ProjectSubjects.runtime, ProjectRuntimeQuery).returns<ProjectRuntime>(),
  health: declareRpc(ProjectSubjects.health).returns<ServiceHealthView>(),
} as const;

/** The projects service's scanner and dataset requests. */
export const ScannerRpc = {
  create: declareRpc(ScannerSubjects.create, CreateScannerCommand).returns<ScannerCreateResponse>(),
  list: declareRpc(ScannerSubjects.list, ListScannersCommand).returns<Page<'scanners', ScannerView>>(),
  get: declareRpc(ScannerSubjects.get, ScannerRefCommand).returns<{ scanner: ScannerView }>(),
  update: declareRpc(ScannerSubjects.update, UpdateScannerCommand).returns<ScannerUpdateResponse>(),
  delete: declareRpc(ScannerSubjects.delete, ScannerRefCommand).returns<MessageResponse>(),
  listVersions: declareRpc(ScannerSubjects.listVersions, ListScannerVersionsCommand).returns<
    Page<'versions', ScannerVersionView>
  >(),
  getVersion: declareRpc(ScannerSubjects.getVersion, ScannerVersionRefCommand).returns<{
    version: ScannerVersionView;
  }>(),
  updateVersion: declareRpc(
    ScannerSubjects.updateVersion,
    UpdateScannerVersionCommand,
  ).returns<ScannerUpdateResponse>(),
  stageDataset: declareRpc(ScannerSubjects.stageDataset, StageDatasetCommand).returns<{
    uploadId: string;
    part: number;
  }>(),
  evaluate: declareRpc(ScannerSubjects.evaluate, EvaluateDatasetCommand).returns<{ datasetRun: DatasetRunView }>(),
  listEvaluations: declareRpc(ScannerSubjects.listEvaluations, ListEvaluationsCommand).returns<
    Page<'datasetRuns', DatasetRunView>
  >(),
  listPackages: declareRpc(ScannerSubjects.listPackages, ListPackagesCommand).returns<Page<'packages', PackageView>>(),
} as const;

export const ProjectEventContracts = {
  projectChanged: declareEvent(ProjectEvents.projectChanged, ProjectChangedEvent, PROJECTS_STREAM),
  scannerChanged: declareEvent(ProjectEvents.scannerChanged, ScannerChangedEvent, PROJECTS_STREAM),
} as const;
