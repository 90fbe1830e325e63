import { ApiProperty } from '@nestjs/swagger';
import { IsString, IsUUID, MaxLength } from 'class-validator';

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
  @ApiProperty({ example: 'support-bot', description: 'An id, a name, or `default` (the tenant\'s default project).' })
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
