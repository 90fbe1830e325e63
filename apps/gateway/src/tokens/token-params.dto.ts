import { ApiProperty } from '@nestjs/swagger';
import { DNS_LABEL, DNS_LABEL_MESSAGE } from '@bastion/contracts';
import { IsString, Matches, MaxLength } from 'class-validator';

export class NamespaceParams {
  @ApiProperty({ example: 'system' })
  @IsString()
  @Matches(DNS_LABEL, { message: `namespace ${DNS_LABEL_MESSAGE}` })
  namespace!: string;
}

export class TokenParams extends NamespaceParams {
  @ApiProperty({ example: 'edge-1' })
  @IsString()
  @MaxLength(256)
  name!: string;
}
