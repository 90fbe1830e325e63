import { standsAlone } from '../../engine/text-boundaries';
import type { Detector } from '../detector';

/** Long-term (AKIA) and temporary (ASIA) AWS access key ids: the prefix and 16 upper-case characters. */
export const awsAccessKey: Detector<'aws-access-key'> = {
  id: 'aws-access-key',
  name: 'AWS access key id',
  description: 'AWS access key ids (AKIA..., ASIA...).',
  pattern: '(?:AKIA|ASIA)[A-Z0-9]{16}',
  confirm: (value, text, start) => standsAlone(text, start, start + value.length),
};
