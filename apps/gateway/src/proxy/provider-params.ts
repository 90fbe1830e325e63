import { declareFastCheck, instanceWith, isPlainRecord, isShortString } from '@bastion/contracts';
import { IsString, MaxLength } from 'class-validator';

/** The path of a model-call route (`/vendor/:provider/...`, `/openai/:provider/...`): the provider's id or name. */
export class ProviderParams {
  @IsString()
  @MaxLength(128)
  provider!: string;
}

// Every model call carries it: checked by hand before class-validator (see fast-check.ts).
declareFastCheck(ProviderParams, (raw) =>
  isPlainRecord(raw) && isShortString(raw.provider, 128)
    ? instanceWith(ProviderParams, { provider: raw.provider })
    : undefined,
);
