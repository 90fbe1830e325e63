import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  Allow,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { fastPrincipal, PrincipalDto } from '../auth/principal.dto';
import { declareFastCheck, hasProtoKeys, instanceWith, isPlainRecord, isShortString } from '../messaging/fast-check';
import { PROXY_CANCEL_PREFIX } from './proxy.subjects';

const CANCEL_SUBJECT = new RegExp(`^${PROXY_CANCEL_PREFIX.replace('.', '\\.')}\\.[A-Za-z0-9-]{1,64}$`);

/** One message of the Anthropic Messages API; `content` is a string or a list of content blocks. */
export class AnthropicMessage {
  @ApiProperty({ enum: ['user', 'assistant'] })
  @IsIn(['user', 'assistant'])
  role!: 'user' | 'assistant';

  @ApiProperty({ oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'object' } }] })
  @Allow()
  content!: string | Record<string, unknown>[];
}

/**
 * The Messages API request. Only what the proxy reads is checked; every other field is passed to
 * an Anthropic provider as sent (the raw body travels beside this).
 */
export class MessagesRequest {
  @ApiProperty({ example: 'claude-sonnet-4-5' })
  @IsString()
  @MaxLength(256)
  model!: string;

  @ApiProperty({ example: 1024 })
  @IsInt()
  @Min(1)
  max_tokens!: number;

  @ApiProperty({ type: [AnthropicMessage] })
  @IsArray()
  @ArrayMinSize(1)
  @ValidateNested({ each: true })
  @Type(() => AnthropicMessage)
  messages!: AnthropicMessage[];

  @ApiPropertyOptional({ default: false })
  @IsOptional()
  @IsBoolean()
  stream?: boolean;

  @ApiPropertyOptional()
  @IsOptional()
  @Allow()
  system?: string | Record<string, unknown>[];
}

/**
 * Whether a Messages call's body (parsed JSON) meets MessagesRequest's rules, checked by hand: the
 * proxy checks every Messages call's body, and class-validator on it cost 3% of the proxy's CPU. True
 * only for a body class-validator accepts (a spec holds it to that); false leaves the verdict, and
 * the error, to class-validator.
 */
export function meetsMessagesRequest(raw: Record<string, unknown>): boolean {
  const { model, max_tokens, messages, stream } = raw;
  if (!isShortString(model, 256) || !Number.isInteger(max_tokens) || (max_tokens as number) < 1) return false;
  if (stream !== undefined && typeof stream !== 'boolean') return false;
  if (!Array.isArray(messages) || messages.length === 0) return false;
  return messages.every((m: unknown) => isPlainRecord(m) && (m.role === 'user' || m.role === 'assistant'));
}

/** One message of OpenAI's Chat Completions API. */
export class ChatMessage {
  @ApiProperty({ enum: ['system', 'developer', 'user', 'assistant', 'tool'] })
  @IsIn(['system', 'developer', 'user', 'assistant', 'tool'])
  role!: string;

  @ApiPropertyOptional({ oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'object' } }], nullable: true })
  @Allow()
  content?: string | Record<string, unknown>[] | null;
}

/**
 * The Chat Completions request. Only what the proxy reads is checked; the rest is translated to
 * the Messages API where it has a counterpart (see the README's OpenAI route).
 */
export class ChatCompletionRequest {
  @ApiProperty({ example: 'claude-sonnet-4-5' })
  @IsString()
  @MaxLength(256)
  model!: string;

  @ApiProperty({ type: [ChatMessage] })
  @IsArray()
  @ArrayMinSize(1)
  @ValidateNested({ each: true })
  @Type(() => ChatMessage)
  messages!: ChatMessage[];

  @ApiPropertyOptional({ default: false })
  @IsOptional()
  @IsBoolean()
  stream?: boolean;

  @ApiPropertyOptional()
  @IsOptional()
  @IsInt()
  @Min(1)
  max_tokens?: number;

  @ApiPropertyOptional()
  @IsOptional()
  @IsInt()
  @Min(1)
  max_completion_tokens?: number;
}

export class SendPromptRequest {
  @ApiPropertyOptional({ description: 'The prompt text; or give promptTemplateId.' })
  @IsOptional()
  @IsString()
  @MaxLength(1_000_000)
  input?: string;

  @ApiProperty({ description: 'A provider id or name.' })
  @IsString()
  @MaxLength(128)
  provider!: string;

  @ApiPropertyOptional({
    description: "A project id or name; default: the token's project, else the tenant's default project.",
  })
  @IsOptional()
  @IsString()
  @MaxLength(128)
  project?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'Send the input of this prompt template.' })
  @IsOptional()
  @IsUUID()
  promptTemplateId?: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @IsOptional()
  @IsObject()
  externalMetadata?: Record<string, unknown>;
}

export class ScanRequest {
  @ApiProperty()
  @IsString()
  @MaxLength(1_000_000)
  input!: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(128)
  project?: string;

  @ApiPropertyOptional({ enum: ['request', 'response'], default: 'request' })
  @IsOptional()
  @IsIn(['request', 'response'])
  scanDirection?: 'request' | 'response';

  @ApiPropertyOptional({ default: false, description: 'Only flag: a scanner that would block flags instead.' })
  @IsOptional()
  @IsBoolean()
  flagOnly?: boolean;

  @ApiPropertyOptional({
    description: 'false: list only the scanners that triggered. Unset or true: every scanner run.',
  })
  @IsOptional()
  @IsBoolean()
  verbose?: boolean;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @IsOptional()
  @IsObject()
  externalMetadata?: Record<string, unknown>;
}

class Scoped {
  @ValidateNested()
  @Type(() => PrincipalDto)
  principal!: PrincipalDto;
}

export class MessagesCommand extends Scoped {
  @IsString()
  @MaxLength(128)
  provider!: string;

  /**
   * The request body exactly as the client sent it: JSON text the gateway passes on unparsed. The
   * proxy parses it once and checks it (MessagesRequest, or ChatCompletionRequest on the OpenAI route).
   */
  @IsString()
  rawBody!: string;

  /** Headers an Anthropic upstream cares about (anthropic-version, anthropic-beta). */
  @IsObject()
  headers!: Record<string, string>;

  /**
   * Set for streams: the subject on which the gateway says the client went away. Only a cancel
   * signal's subject (the proxy subscribes to it and to its `.alive`), never a wildcard.
   */
  @IsOptional()
  @Matches(CANCEL_SUBJECT)
  cancelSubject?: string;
}

/** MessagesCommand's rules by hand (see fast-check.ts): every model call carries one. */
declareFastCheck(MessagesCommand, (raw) => {
  if (!isPlainRecord(raw)) return undefined;
  const principal = fastPrincipal(raw.principal);
  const { provider, rawBody, headers, cancelSubject } = raw;
  if (
    !principal ||
    !isShortString(provider, 128) ||
    typeof rawBody !== 'string' ||
    !isPlainRecord(headers) ||
    hasProtoKeys(headers)
  )
    return undefined;
  if (cancelSubject !== undefined && !(typeof cancelSubject === 'string' && CANCEL_SUBJECT.test(cancelSubject)))
    return undefined;
  const command = instanceWith(MessagesCommand, {
    principal,
    provider,
    rawBody,
    headers: { ...headers } as Record<string, string>,
  });
  if (cancelSubject !== undefined) command.cancelSubject = cancelSubject;
  return command;
});

export class SendPromptCommand extends Scoped {
  @ValidateNested()
  @Type(() => SendPromptRequest)
  body!: SendPromptRequest;
}

export class ScanCommand extends Scoped {
  @ValidateNested()
  @Type(() => ScanRequest)
  body!: ScanRequest;
}
