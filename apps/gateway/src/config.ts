import { AuthConfig } from '@bastion/auth';
import { IsInt, IsString, Max, Min } from 'class-validator';

export class GatewayConfig extends AuthConfig {
  @IsInt()
  @Min(0)
  @Max(65535)
  GATEWAY_PORT = 8080;

  @IsString()
  GATEWAY_HOST = '0.0.0.0';

  /** Largest request body accepted (bytes). */
  @IsInt()
  @Min(1024)
  BODY_LIMIT_BYTES = 1_048_576;
}

export const GATEWAY_CONFIG = Symbol('GATEWAY_CONFIG');
