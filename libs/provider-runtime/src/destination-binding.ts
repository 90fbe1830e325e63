import type { ProviderTemplateView, RequestTemplateView } from '@bastion/contracts';
import { buildScope, compileTemplate, renderTemplate, type ScopeParts } from '@bastion/templates';
import { MIN_SECRET_LENGTH, redactSecrets, secretSpellings } from './redact';
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
  private readonly stages: readonly StageReads[];
  /** Whether any stage's url reads a chosen name: otherwise every request is the template's own addressing. */
  private readonly checks: boolean;
  /** Origin -> the secrets own-addressed stages of this run sent there. */
  private readonly trusted = new Map<string, Set<string>>();

  constructor(
    template: ProviderTemplateView,
    private readonly secrets: Readonly<Record<string, string>>,
  ) {
    this.stages = readsOf(template);
    this.checks = this.stages.some((s) => s.urlReads.length > 0);
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
    if (!this.checks) return null;
    const { urlReads, signsWith } = this.stages[index];
    const secretsRead = this.stages[index].namesRead.filter((n) => n in this.secrets);
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
  if (!secret || secret.length < MIN_SECRET_LENGTH) return true;
  return text.includes(secret) || text.includes(encodeURIComponent(secret));
}

/** What a stage's request reads, as far as where it goes and what it carries are concerned. */
interface StageReads {
  url: string;
  /** The chosen names (the caller's, and outputs an answer chose) its url reads. */
  urlReads: string[];
  /** Every name its request reads (its outputs aside): the secrets among them are what it carries. */
  namesRead: string[];
  /** The names its signing blocks read. */
  signsWith: string[];
}

/** A template's reads depend on the template alone: worked out once per template object, not per call. */
const reads = new WeakMap<ProviderTemplateView, readonly StageReads[]>();

function readsOf(template: ProviderTemplateView): readonly StageReads[] {
  let found = reads.get(template);
  if (!found) {
    const blocks =
      template.type === 'workflow' ? template.stages.map((s) => (s.type === 'retry' ? s.block : s)) : [template];
    const chosen = chosenOutputs(blocks);
    found = blocks.map((b) => {
      const { outputs: _outputs, ...request } = b;
      return {
        url: b.url,
        urlReads: [...templateNamesRead(b.url)].filter((n) => chosen.has(n)),
        namesRead: [...templateNamesRead(request)],
        signsWith: [...templateNamesRead([b.awsAuth, b.ociAuth])],
      };
    });
    reads.set(template, found);
  }
  return found;
}

/** Names whose values others chose: the caller's, and outputs that read `response` or another such name. */
function chosenOutputs(blocks: readonly RequestTemplateView[]): Set<string> {
  const outputReads: [string, Set<string>][] = blocks.flatMap((b) =>
    Object.entries(b.outputs ?? {}).map(([name, value]): [string, Set<string>] => [name, templateNamesRead(value)]),
  );
  const chosen = new Set<string>(CALLER_NAMES);
  for (let grew = true; grew;) {
    grew = false;
    for (const [name, read] of outputReads) {
      if (chosen.has(name) || !(read.has('response') || [...read].some((r) => chosen.has(r)))) continue;
      chosen.add(name);
      grew = true;
    }
  }
  return chosen;
}

/**
 * The names every `{{ }}` expression under `node` (a string, or any JSON around strings) reads, as
 * the template language's own parser reads them; a string that does not parse reads nothing (the
 * template check refuses it on save).
 */
export function templateNamesRead(node: unknown): Set<string> {
  const out = new Set<string>();
  const visit = (n: unknown): void => {
    if (typeof n === 'string') {
      if (!n.includes('{{')) return;
      try {
        for (const name of compileTemplate(n).names) out.add(name);
      } catch {
        // Reads nothing (see above).
      }
    } else if (Array.isArray(n)) n.forEach(visit);
    else if (n && typeof n === 'object') Object.values(n).forEach(visit);
  };
  visit(node);
  return out;
}
