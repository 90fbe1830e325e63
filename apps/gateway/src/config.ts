import { AuthConfig } from '@bastion/auth';
import { IsInt, IsString, Max, Min } from 'class-validator';

export class GatewayConfig extends AuthConfig {
  @IsInt()
  @Min(0)
  @Max(65535)
  GATEWAY_PORT = 8080;

  @IsString()
  GATEWAY_HOST = '0.0.0.0';

  /**
   * Whether to take the client address from X-Forwarded-For: `false`, `true`, or comma-separated
   * addresses/CIDRs of trusted proxies. Site admission rate-limits by this address.
   */
  @IsString()
  GATEWAY_TRUST_PROXY = 'false';

  /** Largest request body accepted (bytes). */
  @IsInt()
  @Min(1024)
  BODY_LIMIT_BYTES = 1_048_576;

  /**
   * A model call, prompt or scan whose body has at least this many bytes as received (a prompt from
   * a template, whose size is not known here, counts as large; the name is older than that count)
   * goes to the message proxy's bulk lane, which replicas with `PROXY_LANE=bulk` answer apart from
   * the short requests (the standard replicas when none runs). 0, the default: every request on the
   * standard lane. Set it once NATS runs with the bulk lane's permissions (`pnpm nats:config`): a
   * request NATS refuses to pass on is not answered at all.
   */
  @IsInt()
  @Min(0)
  PROXY_BULK_FROM_CHARS = 0;

  /**
   * Bytes of model-call request bodies one tenant may have in flight through this gateway at once
   * (`/vendor`, `/openai`, `/prompts`, `/scans`); more wait their turn (see TenantGate).
   */
  @IsInt()
  @Min(1024)
  MODEL_CALL_TENANT_BYTES = 2_097_152;

  /** Model calls of one tenant that may wait for that turn; the next is a 429. */
  @IsInt()
  @Min(0)
  MODEL_CALL_TENANT_QUEUE = 64;

  /**
   * Bytes of model-call request bodies one tenant may send through this gateway a second, on
   * average (0: no limit); `MODEL_CALL_TENANT_BURST_BYTES` at once. Past it its calls wait, and one
   * that would wait over 3 s is a 429 with Retry-After (see TenantGate).
   */
  @IsInt()
  @Min(0)
  MODEL_CALL_TENANT_BYTES_PER_SECOND = 4_194_304;

  @IsInt()
  @Min(1024)
  MODEL_CALL_TENANT_BURST_BYTES = 8_388_608;

  /** Accepted tokens remembered so they are not verified again on every request (0: none). */
  @IsInt()
  @Min(0)
  AUTH_CACHE_MAX_ENTRIES = 10_000;

  /** Longest an accepted token is remembered, however late its `exp` (ms; 0: not at all). */
  @IsInt()
  @Min(0)
  @Max(3_600_000)
  AUTH_CACHE_MAX_AGE_MS = 60_000;
}

export const GATEWAY_CONFIG = Symbol('GATEWAY_CONFIG');
