import { AUTO_VERSION_NAME, DomainError } from '@bastion/contracts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/**
 * The name of a scanner's `number`th version: `v_<number>` unless the caller names it. A chosen name
 * may not look like another version's automatic name (it would take `v_5` from the fifth version)
 * nor like an id (versions are looked up by either).
 */
export function versionName(number: number, requested: string | undefined, loc: string[]): string {
  const auto = `v_${number}`;
  if (requested === undefined || requested === auto) return auto;
  if (AUTO_VERSION_NAME.test(requested)) {
    throw DomainError.invalid(`version name ${requested} is reserved: this version is ${auto}`, [
      { loc, msg: `v_<n> names are given by number; this version is ${auto}`, type: 'value_error' },
    ]);
  }
  if (isUuid(requested)) {
    throw DomainError.invalid('a version name cannot be a UUID', [
      { loc, msg: 'a version name cannot be a UUID', type: 'value_error' },
    ]);
  }
  return requested;
}

/** A version reference in a path or a guardrail entry: its id, or its name. */
export function matchesVersionRef(version: { id: string; name: string }, ref: string): boolean {
  return isUuid(ref) ? version.id.toLowerCase() === ref.toLowerCase() : version.name === ref;
}

export interface VersionLike {
  id: string;
  number: number;
  published: boolean;
}

/**
 * The version an entry runs. A pinned entry runs its version. An unpinned one follows the scanner:
 * the newest published version up to the latest (a newer version that was not pushed stays out),
 * or, when none of those is published, the latest itself.
 */
export function resolveRuntimeVersion<V extends VersionLike>(
  versions: readonly V[],
  latestId: string,
  pinnedId: string | null,
): V {
  if (pinnedId) {
    const pinned = versions.find((v) => v.id === pinnedId);
    if (pinned) return pinned;
  }
  const latest = versions.find((v) => v.id === latestId);
  if (!latest) throw new Error(`scanner has no version ${latestId}`);
  const published = versions
    .filter((v) => v.published && v.number <= latest.number)
    .sort((a, b) => b.number - a.number);
  return published[0] ?? latest;
}
