import type { RequestTemplateView, WorkflowTemplateView } from '@bastion/contracts';
import { compileTemplate } from '@bastion/templates';
import { MIN_SECRET_LENGTH } from './redact';
import type { OutgoingRequest } from './transport';

/**
 * Which of a workflow's stages send where an upstream's answer says: those whose `url` reads a
 * stage output that reads `response` (or reads another such output, however many stages it
 * passes). Indexed as `workflow.stages`; a retry stage is judged by its block.
 *
 * Such a stage may still send the provider's secrets, but only to an origin an earlier stage of
 * the same run sent to with a `url` no answer chose (see `refusedDestination`): a hostile auth
 * server or API cannot name a host of its own and receive the next stage's key.
 */
export function stagesSentWhereAnswersSay(workflow: WorkflowTemplateView): boolean[] {
  const blocks = workflow.stages.map((s) => (s.type === 'retry' ? s.block : s));
  const reads: [string, Set<string>][] = blocks.flatMap((b) =>
    Object.entries(b.outputs ?? {}).map(([name, value]): [string, Set<string>] => [name, namesRead(value)]),
  );
  const chosen = new Set<string>();
  for (let grew = true; grew;) {
    grew = false;
    for (const [name, read] of reads) {
      if (chosen.has(name) || !(read.has('response') || [...read].some((r) => chosen.has(r)))) continue;
      chosen.add(name);
      grew = true;
    }
  }
  return blocks.map((b: RequestTemplateView) => [...namesRead(b.url)].some((n) => chosen.has(n)));
}

/**
 * Why a request may not go where it is addressed, or null when it may: a request whose destination
 * an answer chose, carrying a secret (or signed with one), to an origin none of `trusted` is.
 */
export function refusedDestination(
  request: OutgoingRequest,
  signed: boolean,
  secrets: readonly string[],
  trusted: ReadonlySet<string>,
): string | null {
  const origin = originOf(request.url);
  if (trusted.has(origin) || !(signed || carriesSecret(request, secrets))) return null;
  return `its url comes from an upstream's answer and points to ${origin}, where no request of this provider's own addressing went: its secrets are not sent there`;
}

export function originOf(url: string): string {
  return new URL(url).origin;
}

function carriesSecret(request: OutgoingRequest, secrets: readonly string[]): boolean {
  const values = secrets.filter((s) => s.length >= MIN_SECRET_LENGTH);
  if (values.length === 0) return false;
  const places = [request.url, request.body ?? '', ...Object.values(request.headers)];
  return places.some((text) => values.some((v) => text.includes(v)));
}

/** The names every `{{ }}` expression under `node` reads (a string that does not parse reads nothing). */
function namesRead(node: unknown): Set<string> {
  const out = new Set<string>();
  const visit = (n: unknown): void => {
    if (typeof n === 'string') {
      if (!n.includes('{{')) return;
      try {
        for (const name of compileTemplate(n).names) out.add(name);
      } catch {
        // The template check refuses it on save; here it reads nothing.
      }
    } else if (Array.isArray(n)) n.forEach(visit);
    else if (n && typeof n === 'object') Object.values(n).forEach(visit);
  };
  visit(node);
  return out;
}
