import { Type } from 'class-transformer';
import { IsInt, IsObject, IsOptional, IsString, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { PrincipalDto } from '../auth/principal.dto';
import { CreateProviderRequest, TestProviderRequest, UpdateProviderRequest } from './provider.dto';

class Scoped {
  @ValidateNested()
  @Type(() => PrincipalDto)
  principal!: PrincipalDto;
}

export class SystemProviderQuery extends Scoped {
  @IsOptional()
  @IsString()
  @MaxLength(128)
  ref?: string;
}

export class CreateProviderCommand extends Scoped {
  @IsObject()
  @ValidateNested()
  @Type(() => CreateProviderRequest)
  body!: CreateProviderRequest;
}

export class ListProvidersCommand extends Scoped {
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @IsOptional()
  @IsString()
  cursor?: string;
}

export class ProviderRefCommand extends Scoped {
  /** An id or a name. */
  @IsString()
  @MaxLength(128)
  ref!: string;
}

export class UpdateProviderCommand extends ProviderRefCommand {
  @IsObject()
  @ValidateNested()
  @Type(() => UpdateProviderRequest)
  body!: UpdateProviderRequest;
}

export class TestProviderCommand extends Scoped {
  @IsObject()
  @ValidateNested()
  @Type(() => TestProviderRequest)
  body!: TestProviderRequest;
}

/** From the message proxy: which tenant's provider, by id or name. */
export class ProviderRuntimeQuery {
  @IsString()
  tenant!: string;

  @IsString()
  @MaxLength(128)
  ref!: string;
}
