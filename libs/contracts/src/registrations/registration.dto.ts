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
import { DNS_LABEL, DNS_LABEL_MESSAGE } from '../validation/dns-label';
import { IsStorableJson, IsStorableText } from '../validation/storable-text';

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
