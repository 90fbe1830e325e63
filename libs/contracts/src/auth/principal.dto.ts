import { ArrayNotEmpty, IsArray, IsIn, IsOptional, IsString } from 'class-validator';
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
