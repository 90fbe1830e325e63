import type { ProviderTemplateView, RequestTemplateView } from '@bastion/contracts';
import { buildScope, compileTemplate, renderTemplate, type ScopeParts } from '@bastion/templates';
import { redactSecrets, secretSpellings } from './redact';
import type { OutgoingRequest } from './transport';

/**
 * Secrets bound to where they go, inside one run of a provider's template. A workflow stage's
 * outputs read its answer, and a later stage's `url` may read those outputs: a hostile auth server
 * or API could then name a host of its own and receive the next stage's key. A `url` may also read
 * the caller's `prompt` or `messages`: the app calling the model would then choose the host. So:
 *
 * - A stage whose origin (scheme, host, port) depends on neither an answer nor the caller is the template's own
 *   addressing: it sends what it reads, and the origin is trusted from then on with the secrets it
 *   sent there (read by name, and its value in what went, as written or URI-encoded; or read by
 *   its signing block).
 * - A stage whose origin an answer or the caller chose may send a secret (read by name anywhere in its request,
 *   a signing block included) only to an origin an own-addressed stage of the same run already sent
 *   that secret to. Otherwise it is refused before anything is sent.
 *
 * "Reads a secret" is decided by name, not by looking for the value in what was rendered: an
 * encoded, escaped or decoded secret is still the secret.
 */
export class DestinationBinding {
  /** Names whose values others chose: the caller's, and outputs that read `response` or another such name. */
  private readonly chosen: ReadonlySet<string>;
  /** Per stage (a retry's block for a retry): the chosen outputs its url reads, and the secrets its request reads. */
  private readonly stages: { url: string; urlReads: string[]; secretsRead: string[]; signsWith: string[] }[];
  /** Origin -> the secrets own-addressed stages of this run sent there. */
  private readonly trusted = new Map<string, Set<string>>();

  constructor(
    template: ProviderTemplateView,
    private readonly secrets: Readonly<Record<string, string>>,
  ) {
    const blocks =
      template.type === 'workflow' ? template.stages.map((s) => (s.type === 'retry' ? s.block : s)) : [template];
    this.chosen = chosenOutputs(blocks);
    const secretNames = new Set(Object.keys(secrets));
    this.stages = blocks.map((b) => {
      const { outputs: _outputs, ...request } = b;
      return {
        url: b.url,
        urlReads: [...namesRead(b.url)].filter((n) => this.chosen.has(n)),
        secretsRead: [...namesRead(request)].filter((n) => secretNames.has(n)),
        signsWith: [...namesRead([b.awsAuth, b.ociAuth])].filter((n) => secretNames.has(n)),
      };
    });
  }

  /**
   * Whether stage `index` (0-based) may send `request` (rendered and signed); why not, when it may
   * not. `parts` and `values`: what its url was rendered with. Call once per send, in order.
   */
  refusal(
    index: number,
    request: OutgoingRequest,
    parts: Omit<ScopeParts, 'values'>,
    values: Record<string, unknown>,
  ): string | null {
    const { urlReads, secretsRead, signsWith } = this.stages[index];
    const origin = new URL(request.url).origin;
    if (!this.originChosen(index, origin, parts, values)) {
      let sent = this.trusted.get(origin);
      if (!sent) this.trusted.set(origin, (sent = new Set()));
      const text = [request.url, request.body ?? '', ...Object.values(request.headers)].join('\n');
      for (const name of secretsRead) if (signsWith.includes(name) || carries(text, this.secrets[name])) sent.add(name);
      return null;
    }
    const sent = this.trusted.get(origin);
    const unsent = secretsRead.filter((s) => !sent?.has(s));
    if (unsent.length === 0) return null;
    // The origin may hold a secret the template put in the host (lower-cased there).
    const shown = redactSecrets(origin, secretSpellings(this.secrets));
    return `its url takes its origin from ${urlReads.join(', ')}, which an upstream's answer or the caller chose, and points to ${shown}, where no request of this provider's own addressing sent ${unsent.join(', ')}: those secrets are not sent there`;
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
      const replacedParts: Omit<ScopeParts, 'values'> = { ...parts };
      const replaced = { ...values };
      for (const name of urlReads) {
        if (name === 'prompt') replacedParts.prompt = standIn(parts.prompt, placeholder) as string;
        else if (name === 'messages') replacedParts.messages = standIn(parts.messages, placeholder);
        else replaced[name] = standIn(values[name], placeholder);
      }
      try {
        const rendered = renderTemplate(url, buildScope({ ...replacedParts, values: replaced }));
        return typeof rendered !== 'string' || new URL(rendered).origin !== origin;
      } catch {
        return true;
      }
    });
  }
}

/** What the caller of the model sends, in every template's scope. */
const CALLER_NAMES = ['prompt', 'messages'];

/** Two stand-ins for what answers chose (indexes into the stand-ins of each kind). */
const PLACEHOLDERS = [0, 1];

/**
 * `value` with every leaf an answer chose replaced by stand-in `k` of its kind (strings, numbers,
 * booleans), its shape kept, so a url that reads `{{ tok.tenant }}` renders with it as it would
 * with the answer.
 */
function standIn(value: unknown, k: number): unknown {
  if (typeof value === 'string') return ['placeholder-a', 'placeholder-b'][k];
  if (typeof value === 'number') return k + 1;
  if (typeof value === 'boolean') return k === 0;
  if (Array.isArray(value)) return value.map((v) => standIn(v, k));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, standIn(v, k)]));
  return value;
}

/** Whether `text` holds `secret` as written or URI-encoded (a secret too short to tell is taken as held). */
function carries(text: string, secret: string | undefined): boolean {
  if (!secret || secret.length < 4) return true;
  return text.includes(secret) || text.includes(encodeURIComponent(secret));
}

function chosenOutputs(blocks: readonly RequestTemplateView[]): Set<string> {
  const reads: [string, Set<string>][] = blocks.flatMap((b) =>
    Object.entries(b.outputs ?? {}).map(([name, value]): [string, Set<string>] => [name, namesRead(value)]),
  );
  const chosen = new Set<string>(CALLER_NAMES);
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
