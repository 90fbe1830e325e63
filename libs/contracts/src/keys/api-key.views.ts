import type { Role } from '../auth/principal';

/** An API key as lists and reads show it: never its value. */
export interface ApiKeyView {
  id: string;
  name: string;
  /** The key's first characters (`bsk_` and part of its id), to tell keys apart. */
  prefix: string;
  projectId: string | null;
  role: Role;
  machine: boolean;
  expiresAt: string | null;
  createdAt: string;
  createdBy: string;
  /** Updated at most once a minute or so, not on every request. */
  lastUsedAt: string | null;
}

/** What creating a key answers: the view plus its value, shown this once. */
export interface ApiKeyCreated extends ApiKeyView {
  value: string;
}

/** What the gateway needs to check a key and build its principal. */
export interface ResolvedApiKey {
  id: string;
  tenant: string;
  projectId: string | null;
  role: Role;
  hash: string;
  expiresAt: string | null;
}
