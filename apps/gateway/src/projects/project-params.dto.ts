import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PageQuery } from '@bastion/contracts';
import { IsIn, IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';

export class ScannerIdParams {
  @ApiProperty({ format: 'uuid' })
  @IsUUID()
  scannerId!: string;
}

export class ScannerVersionParams extends ScannerIdParams {
  @ApiProperty({ example: 'v_2', description: 'The version id or its name.' })
  @IsString()
  @MaxLength(64)
  versionId!: string;
}

export class ProjectRefParams {
  @ApiProperty({ example: 'support-bot', description: "An id, a name, or `default` (the tenant's default project)." })
  @IsString()
  @MaxLength(128)
  project!: string;
}

export class ProjectIdParams {
  @ApiProperty({ format: 'uuid' })
  @IsUUID()
  id!: string;
}

export class ProjectEntryParams extends ProjectIdParams {
  @ApiProperty({ format: 'uuid', description: 'The scanner, package or provider id of the entry.' })
  @IsUUID()
  entryId!: string;
}

/** `/projects/{p}/{list}/{entryId}` where `{p}` is the project's id or name. */
export class ProjectRefEntryParams {
  @ApiProperty({ example: 'support-bot', description: 'The project: an id, a name, or `default`.' })
  @IsString()
  @MaxLength(128)
  id!: string;

  @ApiProperty({ format: 'uuid', description: 'The scanner, package or provider id.' })
  @IsUUID()
  entryId!: string;
}

/** `?source=vendor`, as clients ask for packages: every package here is built in, from the vendor. */
export class PackagesQuery extends PageQuery {
  @ApiPropertyOptional({
    enum: ['vendor'],
    description: 'Every package is a built-in (vendor) package, so this changes nothing.',
  })
  @IsOptional()
  @IsIn(['vendor'])
  source?: string;
}
