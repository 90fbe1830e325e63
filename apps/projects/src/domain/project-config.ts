import {
  DomainError,
  type FieldViolation,
  type GuardrailEntry,
  type GuardrailEntryChange,
  type GuardrailEntryInput,
  type GuardrailList,
  type GuardSettings,
  LATEST_VERSION,
  type ProjectList,
  type ProviderEntry,
  type ProviderEntryChange,
  type ProviderEntryInput,
  type ScannerDirection,
  type ScannerKind,
} from '@bastion/contracts';
import { matchesVersionRef, resolveRuntimeVersion } from './versions';

/** A guardrail entry as stored: the pinned version's id beside its name (names are for people). */
export interface StoredGuardrailEntry extends GuardrailEntry {
  versionId: string | null;
}

/** A project's config as stored in a revision (and, for the latest, on the project). */
export interface StoredProjectConfig {
  packages: StoredGuardrailEntry[];
  scanners: StoredGuardrailEntry[];
  providers: ProviderEntry[];
  /** The message proxy's settings for content it cannot scan (see GuardSettings). */
  guard?: GuardSettings;
}

export const EMPTY_CONFIG: StoredProjectConfig = { packages: [], scanners: [], providers: [] };

/** What an entry needs to know of the scanner (or package) it names. */
export interface GuardrailTarget {
  id: string;
  name: string;
  kind: ScannerKind;
  latestVersionId: string;
  versions: readonly { id: string; name: string; number: number; published: boolean; direction: string }[];
}

const KIND_OF: Record<GuardrailList, ScannerKind> = { scanners: 'scanner', packages: 'package' };

/** A new entry with its defaults: enabled, blocking, block mode, following the latest version. */
export function buildGuardrailEntry(
  input: GuardrailEntryInput,
  target: GuardrailTarget,
  list: GuardrailList,
  loc: string[],
): StoredGuardrailEntry {
  if (target.kind !== KIND_OF[list]) {
    const other = list === 'scanners' ? 'packages' : 'scanners';
    throw violation([...loc, 'id'], `${target.name} is a ${target.kind}: attach it under ${other}`);
  }
  const pin = pinOf(input.version, target, [...loc, 'version']);
  return {
    id: target.id,
    version: pin.version,
    versionId: pin.versionId,
    enabled: input.enabled ?? true,
    blocking: input.blocking ?? true,
    force: input.force ?? false,
    mode: input.mode ?? 'block',
    flagMessage: input.flagMessage ?? '',
    direction: input.direction ?? (directionOf(target, pin.versionId) as ScannerDirection),
  };
}

/** The entry with the given settings changed; a new pin re-reads the version. */
export function changeGuardrailEntry(
  current: StoredGuardrailEntry,
  changes: GuardrailEntryChange,
  target: GuardrailTarget,
  loc: string[],
): StoredGuardrailEntry {
  const pin =
    changes.version === undefined
      ? { version: current.version, versionId: current.versionId }
      : pinOf(changes.version, target, [...loc, 'version']);
  return {
    ...current,
    ...pin,
    enabled: changes.enabled ?? current.enabled,
    blocking: changes.blocking ?? current.blocking,
    force: changes.force ?? current.force,
    mode: changes.mode ?? current.mode,
    flagMessage: changes.flagMessage ?? current.flagMessage,
    direction: changes.direction ?? current.direction,
  };
}

/** `latest` (or nothing) follows the scanner; anything else pins a published version, by name or id. */
function pinOf(
  ref: string | undefined,
  target: GuardrailTarget,
  loc: string[],
): { version: string; versionId: string | null } {
  if (ref === undefined || ref === LATEST_VERSION) return { version: LATEST_VERSION, versionId: null };
  const version = target.versions.find((v) => matchesVersionRef(v, ref));
  if (!version) throw violation(loc, `${target.name} has no version ${ref}`);
  if (!version.published)
    throw violation(loc, `version ${version.name} of ${target.name} is not published: publish it before pinning it`);
  return { version: version.name, versionId: version.id };
}

function directionOf(target: GuardrailTarget, versionId: string | null): string {
  return resolveRuntimeVersion(target.versions, target.latestVersionId, versionId).direction;
}

export function buildProviderEntry(input: ProviderEntryInput): ProviderEntry {
  return {
    id: input.id.toLowerCase(),
    name: input.name ?? '',
    type: input.type ?? '',
    capabilities: input.capabilities ?? [],
    default: input.default ?? false,
    enabled: input.enabled ?? true,
  };
}

export function changeProviderEntry(current: ProviderEntry, changes: ProviderEntryChange): ProviderEntry {
  return {
    ...current,
    name: changes.name ?? current.name,
    type: changes.type ?? current.type,
    capabilities: changes.capabilities ?? current.capabilities,
    default: changes.default ?? current.default,
    enabled: changes.enabled ?? current.enabled,
  };
}

const WHAT: Record<ProjectList, string> = { scanners: 'scanner', packages: 'package', providers: 'provider' };

/** The config with one more entry; an entry already in the list is a 409. */
export function withEntry(
  config: StoredProjectConfig,
  list: ProjectList,
  entry: StoredGuardrailEntry | ProviderEntry,
): StoredProjectConfig {
  const current = config[list] as { id: string }[];
  if (current.some((e) => e.id === entry.id)) {
    throw DomainError.alreadyExists(
      `${WHAT[list]} ${entry.id} is already attached to the project; change it with PATCH`,
    );
  }
  return settle({ ...config, [list]: [...current, entry] }, list, entry.id);
}

/** The config with one entry replaced by `change(entry)`; an entry not in the list is a 404. */
export function withChangedEntry<E extends { id: string }>(
  config: StoredProjectConfig,
  list: ProjectList,
  id: string,
  change: (entry: E) => E,
): StoredProjectConfig {
  const current = config[list] as unknown as E[];
  const index = current.findIndex((e) => e.id === id.toLowerCase());
  if (index < 0) throw DomainError.notFound(`${WHAT[list]} ${id} is not attached to the project`);
  const next = [...current];
  next[index] = change(current[index]);
  return settle({ ...config, [list]: next }, list, id.toLowerCase());
}

export function withoutEntry(config: StoredProjectConfig, list: ProjectList, id: string): StoredProjectConfig {
  const current = config[list] as { id: string }[];
  if (!current.some((e) => e.id === id.toLowerCase()))
    throw DomainError.notFound(`${WHAT[list]} ${id} is not attached to the project`);
  return { ...config, [list]: current.filter((e) => e.id !== id.toLowerCase()) };
}

/** At most one default provider: the one just set default wins. */
function settle(config: StoredProjectConfig, list: ProjectList, changedId: string): StoredProjectConfig {
  if (list !== 'providers') return config;
  const changed = config.providers.find((p) => p.id === changedId);
  if (!changed?.default) return config;
  return {
    ...config,
    providers: config.providers.map((p) => (p.id === changedId || !p.default ? p : { ...p, default: false })),
  };
}

/** Whole lists as a client sends them: no id twice, at most one default provider. */
export function checkLists(config: Partial<StoredProjectConfig>, loc: string[]): void {
  const problems: FieldViolation[] = [];
  for (const list of ['packages', 'scanners', 'providers'] as const) {
    const seen = new Set<string>();
    (config[list] ?? []).forEach((e, i) => {
      if (seen.has(e.id))
        problems.push({ loc: [...loc, list, String(i), 'id'], msg: `${e.id} is listed twice`, type: 'value_error' });
      seen.add(e.id);
    });
  }
  const defaults = (config.providers ?? []).filter((p) => p.default);
  if (defaults.length > 1)
    problems.push({ loc: [...loc, 'providers'], msg: 'at most one provider can be the default', type: 'value_error' });
  if (problems.length)
    throw DomainError.invalid(problems.map((p) => `${p.loc.join('.')}: ${p.msg}`).join('; '), problems);
}

/** The counts a project shows that the config decides. Packages are counted apart from scanners. */
export function countsOf(config: StoredProjectConfig): { providerCount: number; scannerCount: number } {
  return { providerCount: config.providers.length, scannerCount: config.scanners.length };
}

/** The config as the API shows it: entries without their stored version ids. */
export function publicLists(config: StoredProjectConfig): {
  packages: GuardrailEntry[];
  scanners: GuardrailEntry[];
  providers: ProviderEntry[];
  guard?: GuardSettings;
} {
  const strip = ({ versionId: _omit, ...entry }: StoredGuardrailEntry): GuardrailEntry => entry;
  return {
    packages: config.packages.map(strip),
    scanners: config.scanners.map(strip),
    providers: config.providers.map((p) => ({ ...p })),
    ...(config.guard ? { guard: { ...config.guard } } : {}),
  };
}

/** Every scanner and package the config names. */
export function guardrailIdsOf(config: StoredProjectConfig): string[] {
  return [...config.packages, ...config.scanners].map((e) => e.id);
}

function violation(loc: string[], msg: string): DomainError {
  return DomainError.invalid(msg, [{ loc, msg, type: 'value_error' }]);
}
