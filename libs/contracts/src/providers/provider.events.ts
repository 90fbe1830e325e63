import { IsIn, IsISO8601, IsString, IsUUID } from 'class-validator';

/** A tenant provider was created, updated or deleted: caches of it are stale. */
export class ProviderChangedEvent {
  @IsUUID()
  id!: string;

  @IsString()
  tenant!: string;

  @IsString()
  name!: string;

  @IsIn(['created', 'updated', 'deleted'])
  change!: 'created' | 'updated' | 'deleted';

  @IsISO8601()
  occurredAt!: string;
}
