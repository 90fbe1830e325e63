import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsISO8601,
  IsOptional,
  IsString,
  IsUUID,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
  IsInt,
  IsHexadecimal,
  Length,
} from 'class-validator';
import { PrincipalDto } from '../auth/principal.dto';
import { ROLES, type Role } from '../auth/principal';
import { MAX_PAGE_SIZE, PageQuery } from '../backend/page-query.dto';

/** `POST /backend/v1/tokens`: an API key for an app or an SDK. */
export class CreateApiKeyRequest {
  @ApiProperty({ maxLength: 128 })
  @IsString()
  @MinLength(1)
  @MaxLength(128)
  name!: string;

  @ApiPropertyOptional({ description: 'When the key stops working (ISO 8601); never when absent.' })
  @IsOptional()
  @IsISO8601({ strict: true })
  expiresAt?: string;

  @ApiPropertyOptional({ description: 'A key for a machine rather than a person (recorded, shown in lists).' })
  @IsOptional()
  @IsBoolean()
  machine?: boolean;

  @ApiPropertyOptional({ description: 'Scope the key to this project (id or name); tenant-wide when absent.' })
  @IsOptional()
  @IsString()
  @MaxLength(128)
  projectId?: string;

  @ApiPropertyOptional({
    enum: ROLES,
    default: 'member',
    description: 'What the key may do: viewer reads, member also sends and writes.',
  })
  @IsOptional()
  @IsIn(ROLES)
  role?: Role;
}

export class ListApiKeysQuery extends PageQuery {
  @ApiPropertyOptional({ description: 'Only the keys of this project (id).' })
  @IsOptional()
  @IsUUID()
  projectId?: string;
}

export class ApiKeyIdParams {
  @IsUUID()
  id!: string;
}

class Scoped {
  @ValidateNested()
  @Type(() => PrincipalDto)
  principal!: PrincipalDto;
}

export class CreateApiKeyCommand extends Scoped {
  @ValidateNested()
  @Type(() => CreateApiKeyRequest)
  body!: CreateApiKeyRequest;
}

export class ListApiKeysCommand extends Scoped {
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  limit?: number;

  @IsOptional()
  @IsString()
  @MaxLength(512)
  cursor?: string;

  @IsOptional()
  @IsUUID()
  projectId?: string;
}

export class ApiKeyIdCommand extends Scoped {
  @IsUUID()
  id!: string;
}

export class ResolveApiKeyQuery {
  @IsUUID()
  id!: string;

  /**
   * SHA-256 (hex) of the secret the caller presented: the key's `lastUsedAt` is written only when it
   * matches the stored hash (a guessed secret does not make a key look used). Not a credential: the
   * gateway takes only the secret itself, and the stored hash travels in the reply anyway.
   */
  @IsOptional()
  @IsHexadecimal()
  @Length(64, 64)
  secretHash?: string;
}

export class ApiKeyRevokedEvent {
  @IsUUID()
  id!: string;

  @IsString()
  tenant!: string;

  @IsISO8601()
  occurredAt!: string;
}
