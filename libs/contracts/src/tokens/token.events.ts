import { IsBoolean, IsIn, IsISO8601, IsOptional, IsString, IsUUID } from 'class-validator';
import { TOKEN_STATES, type TokenState } from './token.enums';

/** Fields every token event carries: enough for a consumer to keep its own view of tokens. */
export class TokenEvent {
  @IsUUID()
  uid!: string;

  @IsString()
  tenant!: string;

  @IsString()
  namespace!: string;

  @IsString()
  name!: string;

  @IsIn(TOKEN_STATES)
  state!: TokenState;

  @IsBoolean()
  disable!: boolean;

  @IsISO8601()
  occurredAt!: string;

  @IsOptional()
  @IsString()
  requestId?: string;
}

export class TokenCreatedEvent extends TokenEvent {}
export class TokenReplacedEvent extends TokenEvent {}
export class TokenDeletedEvent extends TokenEvent {}

export class TokenStateChangedEvent extends TokenEvent {
  @IsIn(TOKEN_STATES)
  previousState!: TokenState;
}
