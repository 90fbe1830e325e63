import type { RequestTemplateView, WorkflowTemplateView } from '@bastion/contracts';
import { buildScope, compileTemplate, renderTemplate, type ScopeParts } from '@bastion/templates';

/**
 * Secrets bound to where they go, inside one workflow run. A stage's outputs read its answer, and a
 * later stage's `url` may read those outputs: a hostile auth server or API could then name a host
 * of its own and receive the next stage's key. So:
 *
 * - A stage whose origin (scheme, host, port) does not depend on any answer is the template's own
 *   addressing: it sends what it reads, and the origin is trusted from then on with the secrets it
 *   read.
 * - A stage whose origin an answer chose may send a secret (read by name anywhere in its request,
 *   a signing block included) only to an origin an own-addressed stage of the same run already sent
 *   that secret to. Otherwise it is refused before anything is sent.
 *
 * "Reads a secret" is decided by name, not by looking for the value in what was rendered: an
 * encoded, escaped or decoded secret is still the secret.
 */
export class DestinationBinding {
  /** Outputs an answer may have chosen: those that read `response`, or another such output. */
  private readonly chosen: ReadonlySet<string>;
  /** Per stage (a retry's block for a retry): the chosen outputs its url reads, and the secrets its request reads. */
  private readonly stages: { url: string; urlReads: string[]; secretsRead: string[] }[];
  /** Origin -> the secrets own-addressed stages of this run sent there. */
  private readonly trusted = new Map<string, Set<string>>();

  constructor(workflow: WorkflowTemplateView, secretNames: readonly string[]) {
    const blocks = workflow.stages.map((s) => (s.type === 'retry' ? s.block : s));
    this.chosen = chosenOutputs(blocks);
    const secrets = new Set(secretNames);
    this.stages = blocks.map((b) => {
      const { outputs: _outputs, ...request } = b;
      return {
        url: b.url,
        urlReads: [...namesRead(b.url)].filter((n) => this.chosen.has(n)),
        secretsRead: [...namesRead(request)].filter((n) => secrets.has(n)),
      };
    });
  }

  /**
   * Whether stage `index` (0-based) may send its rendered request to `url`; why not, when it may
   * not. `parts` and `values`: what its url was rendered with. Call once per send, in order.
   */
  refusal(
    index: number,
    url: string,
    parts: Omit<ScopeParts, 'values'>,
    values: Record<string, unknown>,
  ): string | null {
    const { urlReads, secretsRead } = this.stages[index];
    const origin = new URL(url).origin;
    if (!this.originChosen(index, origin, parts, values)) {
      let sent = this.trusted.get(origin);
      if (!sent) this.trusted.set(origin, (sent = new Set()));
      for (const s of secretsRead) sent.add(s);
      return null;
    }
    const sent = this.trusted.get(origin);
    const unsent = secretsRead.filter((s) => !sent?.has(s));
    if (unsent.length === 0) return null;
    return `its url comes from an upstream's answer (${urlReads.join(', ')}) and points to ${origin}, where no request of this provider's own addressing sent ${unsent.join(', ')}: those secrets are not sent there`;
  }

  /**
   * Whether an answer chose the origin of the stage's url: its url reads a chosen output, and with
   * those outputs replaced by two placeholders the origin comes out different (or not at all). A
   * url that takes only a path or query from an answer keeps its own origin.
   */
  private originChosen(
    index: number,
    origin: string,
    parts: Omit<ScopeParts, 'values'>,
    values: Record<string, unknown>,
  ): boolean {
    const { url, urlReads } = this.stages[index];
    if (urlReads.length === 0) return false;
    return PLACEHOLDERS.some((placeholder) => {
      const replaced = { ...values };
      for (const name of urlReads) replaced[name] = placeholder;
      try {
        const rendered = renderTemplate(url, buildScope({ ...parts, values: replaced }));
        return typeof rendered !== 'string' || new URL(rendered).origin !== origin;
      } catch {
        return true;
      }
    });
  }
}

/** Two values no answer chose, as different as a host name could tell. */
const PLACEHOLDERS = ['placeholder-a', 'placeholder-b'];

function chosenOutputs(blocks: readonly RequestTemplateView[]): Set<string> {
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
  return chosen;
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
