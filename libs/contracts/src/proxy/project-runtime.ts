import type { GuardrailEntry, ProviderEntry } from '../projects/projects.views';
import type { DeploymentStatus, ScannerDirection, ScannerKind } from '../projects/scanner.enums';

/** A guardrail entry with the version it runs resolved: what the message proxy compiles. */
export interface RuntimeGuardrail extends GuardrailEntry {
  name: string;
  type: string;
  kind: ScannerKind;
  builtIn: boolean;
  /** The version that runs: the pinned one, else the newest published, else the latest. */
  resolvedVersion: {
    id: string;
    name: string;
    published: boolean;
    direction: ScannerDirection;
    config: Record<string, unknown>;
  };
}

/**
 * `projects.project.runtime.v1` (query: ProjectRuntimeQuery {tenant, project: id | name | "default"}):
 * what the message proxy needs of a project, cached there until a `projects.*.changed.v1` event.
 */
/**
 * How the proxy treats what it cannot scan, per project. `unreadableContent`: `refuse` refuses every
 * image, base64 document and unknown block or delta type; `flag` passes them all and flags the
 * prompt. Unset: known binary content (images, PDFs) passes flagged, and unknown types are refused.
 */
export interface GuardSettings {
  unreadableContent?: 'refuse' | 'flag';
  /** Scan the descriptions and schemas of the tools a request declares (off: they are the app's own text). */
  scanToolDescriptions?: boolean;
}

export interface ProjectRuntime {
  tenant: string;
  project: {
    id: string;
    name: string;
    deploymentStatus: DeploymentStatus;
    /** Only a live project enforces its scanners. */
    enforcing: boolean;
  };
  /** The config revision this was built from. */
  configId: string;
  revision: number;
  packages: RuntimeGuardrail[];
  scanners: RuntimeGuardrail[];
  /** An empty list allows every provider of the tenant. */
  providers: ProviderEntry[];
  guard?: GuardSettings;
}
