import { ArrayNotEmpty, IsArray, IsIn, IsOptional, IsString } from 'class-validator';
import { declareFastCheck, instanceWith, isPlainRecord } from '../messaging/fast-check';
import { type Credential, CREDENTIALS, isPrincipal, type Principal, ROLES, type Role } from './principal';

/** The principal as it travels over NATS, validated on receipt like any payload. */
export class PrincipalDto implements Principal {
  @IsString()
  sub!: string;

  @IsString()
  tenant!: string;

  @IsArray()
  @ArrayNotEmpty()
  @IsIn(ROLES, { each: true })
  roles!: Role[];

  @IsOptional()
  @IsString()
  project?: string;

  @IsOptional()
  @IsIn(CREDENTIALS)
  credential?: Credential;
}

/** PrincipalDto's rules by hand, for the payloads of model calls (see fast-check.ts). */
export function fastPrincipal(raw: unknown): PrincipalDto | undefined {
  // The access guard's shape check, and the credential the class also checks.
  if (!isPlainRecord(raw) || !isPrincipal(raw)) return undefined;
  const { sub, tenant, roles, project, credential } = raw;
  if (credential !== undefined && !CREDENTIALS.includes(credential)) return undefined;
  const principal = instanceWith(PrincipalDto, { sub, tenant, roles: [...roles] });
  if (project !== undefined) principal.project = project;
  if (credential !== undefined) principal.credential = credential;
  return principal;
}
declareFastCheck(PrincipalDto, fastPrincipal);
