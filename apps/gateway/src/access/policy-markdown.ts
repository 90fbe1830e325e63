import { type AccessRule, PRINCIPAL_KINDS, type RpcRule } from '@bastion/contracts';

const LABEL: Record<string, string> = {
  'user-jwt': 'user JWT',
  'project-jwt': 'project JWT',
  'project-key': 'project key',
  'tenant-key': 'tenant key',
};

/** The access policy as the Markdown table README.md shows (a unit spec keeps the two equal). */
export function policyMarkdown(policy: Readonly<Record<string, AccessRule | RpcRule>>, what = 'route'): string {
  const head = `| ${what} | least role | ${PRINCIPAL_KINDS.map((k) => LABEL[k]).join(' | ')} |`;
  const rule = `|---|---|${PRINCIPAL_KINDS.map(() => ':-:').join('|')}|`;
  const rows = Object.entries(policy).map(([route, r]) =>
    'public' in r || 'internal' in r
      ? `| \`${route}\` | ${'public' in r ? 'public' : 'internal (no principal)'} | ${PRINCIPAL_KINDS.map(() => '-').join(' | ')} |`
      : `| \`${route}\` | ${r.role} | ${PRINCIPAL_KINDS.map((k) => (r.kinds.includes(k) ? 'yes' : 'no')).join(' | ')} |`,
  );
  return [head, rule, ...rows].join('\n');
}
