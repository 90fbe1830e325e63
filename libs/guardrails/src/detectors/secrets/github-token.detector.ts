import { standsAlone } from '../../engine/text-boundaries';
import type { Detector } from '../detector';

/**
 * GitHub tokens by their documented prefixes: personal (ghp_), OAuth (gho_), user-to-server (ghu_),
 * server-to-server (ghs_), refresh (ghr_) and fine-grained personal tokens (github_pat_). Lengths
 * are lower bounds: GitHub reserves the right to make tokens longer.
 */
export const githubToken: Detector<'github-token'> = {
  id: 'github-token',
  name: 'GitHub token',
  description: 'GitHub tokens (ghp_, gho_, ghu_, ghs_, ghr_, github_pat_).',
  pattern: 'gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{50,244}',
  confirm: (value, text, start) => standsAlone(text, start, start + value.length),
};
