import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsInt,
  IsLatitude,
  IsLongitude,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { PrincipalDto } from '../auth/principal.dto';
import { declareFastCheck, hasProtoKeys, instanceWith, isPlainRecord, isShortString } from '../messaging/fast-check';
import { DNS_LABEL, DNS_LABEL_MESSAGE } from '../validation/dns-label';
import { isStorableJson, isStorableString, IsStorableJson, IsStorableText } from '../validation/storable-text';

/** What a site says about itself when it registers (sites send more fields; those are stored as sent). */
export class Passport {
  @ApiProperty({ example: 'edge-site-1' })
  @IsString()
  @MaxLength(256)
  @IsStorableText()
  cluster_name!: string;

  @ApiPropertyOptional({ example: 1 })
  @IsOptional()
  @IsInt()
  @Min(1)
  cluster_size?: number;

  @ApiPropertyOptional({ example: 48.85 })
  @IsOptional()
  @IsLatitude()
  latitude?: number;

  @ApiPropertyOptional({ example: 2.35 })
  @IsOptional()
  @IsLongitude()
  longitude?: number;
}

export class RegistrationMetaInput {
  @ApiProperty({ example: 'node-1', description: 'The registering node.' })
  @IsString()
  @Matches(DNS_LABEL, { message: `name ${DNS_LABEL_MESSAGE}` })
  name!: string;
}

export class RegisterBootstrapSpec {
  @ApiProperty({ description: "A NORMAL token's uid, or a JWT issued by this service." })
  @IsString()
  @MaxLength(8192)
  token!: string;

  @ApiProperty({ type: Passport })
  @IsObject()
  @ValidateNested()
  @Type(() => Passport)
  passport!: Passport;
}

export class RegisterBootstrapRequest {
  @ApiProperty({ type: RegistrationMetaInput })
  @IsObject()
  @ValidateNested()
  @Type(() => RegistrationMetaInput)
  metadata!: RegistrationMetaInput;

  @ApiProperty({ type: RegisterBootstrapSpec })
  @IsObject()
  @ValidateNested()
  @Type(() => RegisterBootstrapSpec)
  spec!: RegisterBootstrapSpec;
}

export class RegistrationsByTokenRequest {
  @ApiProperty({ description: "The token as the site presents it: a NORMAL token's uid or a JWT." })
  @IsString()
  @MaxLength(8192)
  site_token!: string;
}

export class CloudInitQuery {
  @ApiProperty({
    example: 'kvm',
    description:
      'The site provider: kvm, vmware, aws, azure, gcp, openstack, nutanix or baremetal (all boot from the same cloud-init). Any other is a 400.',
  })
  @IsString()
  provider!: string;

  @ApiPropertyOptional({
    description:
      'The site. A valid JWT token already bound to it is reused; otherwise a new one is issued, bound to it.',
  })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  site_name?: string;

  @ApiPropertyOptional({ description: 'Accepted and ignored: the cloud-init is the same either way.' })
  @IsOptional()
  @IsString()
  enable_management_network?: string;
}

/** NATS payloads of the admission subjects. */
export class RegisterSiteCommand {
  @ValidateNested()
  @Type(() => RegisterBootstrapRequest)
  body!: RegisterBootstrapRequest;

  /** The passport as the site sent it, extra fields included; `body.spec.passport` is its checked part. */
  @IsObject()
  @IsStorableJson()
  passport!: Record<string, unknown>;

  @IsString()
  sourceAddress!: string;
}

/**
 * A latitude and a longitude as class-validator's IsLatitude and IsLongitude take a number: its
 * decimal form must match (an exponent form such as 1e-7 does not).
 */
const LATITUDE = /^[+-]?(90(\.0+)?|[1-8]?\d(\.\d+)?)$/;
const LONGITUDE = /^[+-]?(180(\.0+)?|1[0-7]\d(\.\d+)?|\d{1,2}(\.\d+)?)$/;

/**
 * A plain value whose keys at every depth are none the validation pipe would drop: `prototype`,
 * and every name an object inherits (`__proto__`, `constructor`, `toString`, `valueOf`, ...), which
 * class-transformer skips when it copies a plain object.
 */
function plainAllTheWay(v: unknown, depth = 0): boolean {
  if (v === null || typeof v !== 'object') return true;
  if (depth > 32) return false;
  if (Array.isArray(v)) return v.every((e) => plainAllTheWay(e, depth + 1));
  return !hasProtoKeys(v as Record<string, unknown>) && Object.values(v).every((e) => plainAllTheWay(e, depth + 1));
}

/** RegisterBootstrapRequest's rules by hand (see fast-check.ts): every site registration carries one. */
function fastRegisterBootstrap(raw: unknown): RegisterBootstrapRequest | undefined {
  if (!isPlainRecord(raw)) return undefined;
  const { metadata, spec } = raw;
  if (!isPlainRecord(metadata) || !isPlainRecord(spec)) return undefined;
  const { name } = metadata;
  const { token, passport } = spec;
  if (typeof name !== 'string' || !DNS_LABEL.test(name) || !isShortString(token, 8192) || !isPlainRecord(passport))
    return undefined;
  const { cluster_name, cluster_size, latitude, longitude } = passport;
  if (!isShortString(cluster_name, 256) || !isStorableString(cluster_name)) return undefined;
  const checked = instanceWith(Passport, { cluster_name });
  if (cluster_size !== undefined) {
    if (!(typeof cluster_size === 'number' && Number.isInteger(cluster_size) && cluster_size >= 1)) return undefined;
    checked.cluster_size = cluster_size;
  }
  if (latitude !== undefined) {
    if (!(typeof latitude === 'number' && LATITUDE.test(String(latitude)))) return undefined;
    checked.latitude = latitude;
  }
  if (longitude !== undefined) {
    if (!(typeof longitude === 'number' && LONGITUDE.test(String(longitude)))) return undefined;
    checked.longitude = longitude;
  }
  return instanceWith(RegisterBootstrapRequest, {
    metadata: instanceWith(RegistrationMetaInput, { name }),
    spec: instanceWith(RegisterBootstrapSpec, { token, passport: checked }),
  });
}

declareFastCheck(RegisterBootstrapRequest, fastRegisterBootstrap);

declareFastCheck(RegisterSiteCommand, (raw) => {
  if (!isPlainRecord(raw)) return undefined;
  const body = fastRegisterBootstrap(raw.body);
  const { passport, sourceAddress } = raw;
  if (!body || typeof sourceAddress !== 'string' || !isPlainRecord(passport)) return undefined;
  // The passport is kept whole, as the site sent it: storable, and plain at every depth.
  if (!isStorableJson(passport) || !plainAllTheWay(passport)) return undefined;
  return instanceWith(RegisterSiteCommand, { body, passport, sourceAddress });
});

class TenantCommand {
  @ValidateNested()
  @Type(() => PrincipalDto)
  principal!: PrincipalDto;
}

export class ListRegistrationsCommand extends TenantCommand {
  @IsString()
  @Matches(DNS_LABEL, { message: `namespace ${DNS_LABEL_MESSAGE}` })
  namespace!: string;

  @IsOptional()
  @IsString()
  labelFilter?: string;

  @IsOptional()
  reportFields?: boolean;
}

export class DeleteRegistrationCommand extends TenantCommand {
  @IsString()
  @Matches(DNS_LABEL, { message: `namespace ${DNS_LABEL_MESSAGE}` })
  namespace!: string;

  @IsString()
  name!: string;
}

export class RegistrationsByTokenCommand extends TenantCommand {
  @IsString()
  siteToken!: string;
}

export class CloudInitCommand extends TenantCommand {
  @IsString()
  provider!: string;

  @IsOptional()
  @IsString()
  siteName?: string;
}
