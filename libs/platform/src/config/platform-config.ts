import { IsIn, IsInt, IsString, Matches, Max, Min } from 'class-validator';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Settings every process of the platform reads. Services extend it with their own. */
export class PlatformConfig {
  @Matches(/^(nats|tls):\/\/.+/, { message: 'NATS_URL must look like nats://host:4222 (comma-separate several)' })
  NATS_URL = 'nats://127.0.0.1:4222';

  /**
   * This process's password as its NATS user (the user is the service's name: bus-permissions.ts).
   * Unset outside production: the development password, which the local nats-server knows.
   */
  @IsString()
  NATS_PASSWORD = '';

  @IsIn(LOG_LEVELS)
  LOG_LEVEL = 'info';

  /** How long a NATS request may take before the caller gives up (ms). */
  @IsInt()
  @Min(100)
  @Max(120_000)
  RPC_TIMEOUT_MS = 5000;

  @IsString()
  NODE_ENV = 'development';

  /** Port of /livez, /readyz and /metrics beside a NATS service (0: any free port). */
  @IsInt()
  @Min(0)
  @Max(65535)
  HEALTH_PORT = 9464;

  /**
   * How long a stop (SIGTERM) waits for the requests and streams in flight (ms). Keep it below the
   * pod's terminationGracePeriodSeconds minus its preStop sleep.
   */
  @IsInt()
  @Min(0)
  @Max(600_000)
  SHUTDOWN_GRACE_MS = 20_000;
}

export class DatabaseConfig extends PlatformConfig {
  @Matches(/^postgres(ql)?:\/\/.+/, { message: 'DATABASE_URL must be a postgresql:// URL' })
  DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/postgres';
}
