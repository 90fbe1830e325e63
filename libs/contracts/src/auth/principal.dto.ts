import { ArrayNotEmpty, IsArray, IsIn, IsOptional, IsString } from 'class-validator';
import { declareFastCheck, instanceWith, isPlainRecord } from '../messaging/fast-check';
import { type Credential, CREDENTIALS, type Principal, ROLES, type Role } from './principal';

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
  if (!isPlainRecord(raw)) return undefined;
  const { sub, tenant, roles, project, credential } = raw;
  if (typeof sub !== 'string' || typeof tenant !== 'string') return undefined;
  if (!Array.isArray(roles) || roles.length === 0 || !roles.every((r) => ROLES.includes(r as Role))) return undefined;
  if (project !== undefined && typeof project !== 'string') return undefined;
  if (credential !== undefined && !CREDENTIALS.includes(credential as Credential)) return undefined;
  const principal = instanceWith(PrincipalDto, { sub, tenant, roles: [...(roles as Role[])] });
  if (project !== undefined) principal.project = project;
  if (credential !== undefined) principal.credential = credential as Credential;
  return principal;
}
declareFastCheck(PrincipalDto, fastPrincipal);
