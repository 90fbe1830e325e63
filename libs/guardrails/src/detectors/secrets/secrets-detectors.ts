import { awsAccessKey } from './aws-access-key.detector';
import { genericApiKey } from './generic-api-key.detector';
import { githubToken } from './github-token.detector';
import { jwt } from './jwt.detector';
import { privateKey } from './private-key.detector';

export const SECRETS_DETECTORS = [awsAccessKey, githubToken, jwt, privateKey, genericApiKey] as const;

export type SecretsDetectorId = (typeof SECRETS_DETECTORS)[number]['id'];
