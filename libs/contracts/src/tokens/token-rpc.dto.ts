import { Type } from 'class-transformer';
import { IsBoolean, IsIn, IsObject, IsOptional, IsString, Matches, ValidateNested } from 'class-validator';
import { PrincipalDto } from '../auth/principal.dto';
import { DNS_LABEL, DNS_LABEL_MESSAGE } from '../validation/dns-label';
import { GET_RESPONSE_FORMATS, type GetResponseFormat, TOKEN_STATES, type TokenState } from './token.enums';
import { CreateTokenRequest, ReplaceTokenRequest } from './token-requests.dto';

/**
 * Payloads of the tokens service's NATS requests. The gateway has already validated the HTTP body;
 * these are validated again on receipt because a service trusts no sender.
 */
class TenantScoped {
  @ValidateNested()
  @Type(() => PrincipalDto)
  principal!: PrincipalDto;

  @IsString()
  @Matches(DNS_LABEL, { message: `namespace ${DNS_LABEL_MESSAGE}` })
  namespace!: string;
}

class NameScoped extends TenantScoped {
  @IsString()
  name!: string;
}

export class CreateTokenCommand extends TenantScoped {
  @IsObject()
  @ValidateNested()
  @Type(() => CreateTokenRequest)
  body!: CreateTokenRequest;
}

export class ReplaceTokenCommand extends NameScoped {
  @IsObject()
  @ValidateNested()
  @Type(() => ReplaceTokenRequest)
  body!: ReplaceTokenRequest;
}

export class ListTokensQueryCommand extends TenantScoped {
  @IsOptional()
  @IsString()
  labelFilter?: string;

  @IsBoolean()
  reportFields!: boolean;

  @IsBoolean()
  reportStatusFields!: boolean;
}

export class GetTokenCommand extends NameScoped {
  @IsIn(GET_RESPONSE_FORMATS)
  responseFormat!: GetResponseFormat;
}

export class DeleteTokenCommand extends NameScoped {
  @IsBoolean()
  failIfReferred!: boolean;
}

export class SetTokenStateCommand extends NameScoped {
  @IsIn(TOKEN_STATES)
  state!: TokenState;
}
