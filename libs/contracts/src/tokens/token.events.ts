import { IsBoolean, IsIn, IsInt, IsISO8601, IsOptional, IsString, IsUUID, Min } from 'class-validator';
import { TOKEN_STATES, TOKEN_TYPES, type TokenState, type TokenType } from './token.enums';

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

  @IsIn(TOKEN_TYPES)
  type!: TokenType;

  /** SHA-256 (hex) of a JWT token's JWT, so a view can check it without holding the credential. */
  @IsString()
  contentHash!: string;

  /** The site a JWT token is bound to; empty when unbound. */
  @IsString()
  siteName!: string;

  @IsOptional()
  @IsISO8601()
  expiresAt?: string | null;

  @IsOptional()
  @IsInt()
  maxRegistrations?: number | null;

  /** Grows with every change of the token: a consumer ignores an event older than what it has. */
  @IsInt()
  @Min(1)
  revision!: number;

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

/** One admission attempt, admitted or refused; the reason is for operators, never for the site. */
export class SiteAdmissionEvent {
  @IsIn(['ADMITTED', 'REFUSED'])
  outcome!: 'ADMITTED' | 'REFUSED';

  @IsString()
  reason!: string;

  @IsOptional()
  @IsString()
  tenant?: string | null;

  @IsOptional()
  @IsUUID()
  tokenUid?: string | null;

  @IsString()
  nodeName!: string;

  @IsString()
  siteName!: string;

  @IsString()
  sourceAddress!: string;

  @IsISO8601()
  occurredAt!: string;
}
