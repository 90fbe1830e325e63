import {
  ApiKeyEventContracts,
  ApiKeyRpc,
  type EventContract,
  PROVIDER_LIMITS_BUCKET,
  ProjectEventContracts,
  ProjectRpc,
  PromptRpc,
  ProviderEventContracts,
  ProviderRpc,
  ProxyEventContracts,
  ProxyBulkRpc,
  ProxyBulkStreams,
  ProxyRpc,
  ProxySignals,
  ProxyStreams,
  type RpcContract,
  ScannerRpc,
  type SignalContract,
  type StreamContract,
  TokenEventContracts,
  TokenRpc,
  TOKENS_ADMISSIONS_STREAM,
  TOKENS_STREAM,
} from '@bastion/contracts';
import { EVENT_PAYLOAD_BUCKET } from '../jetstream/event-publisher';

/**
 * Who may say what on the bus. Each process connects to NATS as its own user, and nats-server
 * enforces these permissions (rendered by `natsServerAuthorization`): the gateway alone calls the
 * services' requests, the message proxy alone asks for decrypted provider runtimes, each service
 * publishes only its own events and reads only the streams it needs. A service that answers
 * requests publishes its replies (and a stream's or long call's frames) into its callers' frames
 * inboxes, and only theirs.
 */
export const BUS_USERS = ['gateway', 'tokens', 'providers', 'projects', 'prompts', 'message-proxy'] as const;
export type BusUser = (typeof BUS_USERS)[number];

/** What the bus needs of a declaration: its kind and subject (and an event's stream). */
type Request = Pick<RpcContract<never, unknown> | StreamContract<never, unknown>, 'kind' | 'subject'>;
type Event = Pick<EventContract<object>, 'subject' | 'stream'>;

interface BusRole {
  /** Requests it answers (as a queue group). */
  answers?: Request[];
  /** Requests it sends. */
  calls?: Request[];
  /** Events it publishes; it declares the streams that keep them. */
  publishes?: Event[];
  /** Events it hears on core NATS as they happen (no stream consumer). */
  hears?: Event[];
  /** Streams it reads with a durable consumer, or declares beside their writer. */
  reads?: string[];
  /** Signals it sends and receives. */
  sends?: SignalContract[];
  receives?: SignalContract[];
  /** Key-value buckets it reads and writes. */
  kv?: string[];
  /** Object stores it writes (`write`) or only reads. */
  objects?: { bucket: string; write: boolean }[];
}

const all = <T>(group: Record<string, T>): T[] => Object.values(group);

/** Requests only the message proxy makes: they answer with decrypted secrets or stored templates. */
const PROXY_ONLY: Request[] = [ProviderRpc.runtime, ProjectRpc.runtime, PromptRpc.templateInput];

const ANSWERS: Record<Exclude<BusUser, 'gateway'>, Request[]> = {
  tokens: all(TokenRpc),
  providers: all(ProviderRpc),
  projects: [...all(ProjectRpc), ...all(ScannerRpc), ...all(ApiKeyRpc)],
  prompts: all(PromptRpc),
  'message-proxy': [...all(ProxyRpc), ...all(ProxyStreams), ...all(ProxyBulkRpc), ...all(ProxyBulkStreams)],
};

export const BUS_ROLES: Readonly<Record<BusUser, BusRole>> = {
  gateway: {
    calls: Object.values(ANSWERS)
      .flat()
      .filter((c) => !PROXY_ONLY.includes(c)),
    hears: [ApiKeyEventContracts.revoked],
    sends: [ProxySignals.cancel],
  },
  tokens: {
    answers: ANSWERS.tokens,
    publishes: all(TokenEventContracts),
    // Refusals are counted across replicas; token changes feed each replica's local view.
    hears: [TokenEventContracts.siteRefused],
    reads: [TOKENS_STREAM, TOKENS_ADMISSIONS_STREAM],
  },
  providers: { answers: ANSWERS.providers, publishes: all(ProviderEventContracts) },
  projects: { answers: ANSWERS.projects, publishes: [...all(ProjectEventContracts), ...all(ApiKeyEventContracts)] },
  prompts: {
    answers: ANSWERS.prompts,
    reads: [ProxyEventContracts.promptRecorded.stream],
    objects: [{ bucket: EVENT_PAYLOAD_BUCKET, write: false }],
  },
  'message-proxy': {
    answers: ANSWERS['message-proxy'],
    calls: PROXY_ONLY,
    publishes: all(ProxyEventContracts),
    hears: [ProjectEventContracts.projectChanged, ProjectEventContracts.scannerChanged, ProviderEventContracts.changed],
    receives: [ProxySignals.cancel],
    kv: [PROVIDER_LIMITS_BUCKET],
    objects: [{ bucket: EVENT_PAYLOAD_BUCKET, write: true }],
  },
};

/** The reply subjects of a user's requests: its connections' `inboxPrefix`. */
export function inboxPrefix(user: string): string {
  return `_INBOX.${user}`;
}

/**
 * Replies and frames go to `<inbox prefix>.frames.<nuid>.<answerer>.<id>` (FramesInbox): the bus user
 * that answers the request may publish there, and only under its own name.
 */
export const FRAMES_TOKEN = 'frames';

/** The answerer token of a request no role answers (only an unrestricted user could answer it). */
export const UNKNOWN_ANSWERER = 'unknown';

let answerers: Map<string, BusUser> | undefined;

/** The bus user that answers requests on `subject`, or UNKNOWN_ANSWERER. */
export function answererOf(subject: string): string {
  answerers ??= new Map(BUS_USERS.flatMap((u) => (BUS_ROLES[u].answers ?? []).map((c) => [c.subject, u] as const)));
  return answerers.get(subject) ?? UNKNOWN_ANSWERER;
}

/**
 * No `allow_responses`: with it, nats-server keeps every reply subject it delivers to an answering
 * client until its expiry, also JetStream deliveries (acked under `$JS.ACK`) and calls answered
 * with frames, which never use their entry. Replies go to the callers' frames inboxes instead,
 * which the answering services may publish into.
 */
export interface NatsPermissions {
  publish: { allow: string[] };
  subscribe: { allow: string[] };
}

/** What a stream's consumers, its writer's acks and its direct reads need on the JetStream API. */
function streamApi(stream: string): string[] {
  return [
    `$JS.API.STREAM.*.${stream}`,
    `$JS.API.STREAM.MSG.*.${stream}`,
    `$JS.API.DIRECT.GET.${stream}`,
    `$JS.API.DIRECT.GET.${stream}.>`,
    `$JS.API.CONSUMER.*.${stream}`,
    `$JS.API.CONSUMER.*.${stream}.>`,
    `$JS.API.CONSUMER.DURABLE.CREATE.${stream}.>`,
    `$JS.API.CONSUMER.MSG.NEXT.${stream}.>`,
    `$JS.ACK.${stream}.>`,
    `$JS.FC.${stream}.>`,
  ];
}

/**
 * The permissions of one bus user, derived from its role. `unrestricted`: users outside the roles
 * (the tests' own) that may call anything; an answering service may reply anywhere in their inboxes.
 */
export function natsPermissions(user: BusUser, unrestricted: readonly string[] = []): NatsPermissions {
  const role = BUS_ROLES[user];
  const answers = role.answers ?? [];
  const publishes = role.publishes ?? [];
  const streams = new Set([...publishes.map((e) => e.stream), ...(role.reads ?? [])]);
  for (const bucket of role.kv ?? []) streams.add(`KV_${bucket}`);
  for (const { bucket } of role.objects ?? []) streams.add(`OBJ_${bucket}`);
  const usesJetStream = streams.size > 0;
  // Replies go to the caller's frames inbox (RpcClient), under the answerer's name: this user may
  // reply to the callers of the requests it answers, and to nothing meant for another service.
  const repliesTo = [
    ...BUS_USERS.filter((u) => (BUS_ROLES[u].calls ?? []).some((c) => answers.includes(c))).map(
      (u) => `${inboxPrefix(u)}.${FRAMES_TOKEN}.*.${user}.>`,
    ),
    ...(answers.length > 0 ? unrestricted.map((u) => `${inboxPrefix(u)}.>`) : []),
  ];
  const publish = [
    ...(role.calls ?? []).map((c) => c.subject),
    ...publishes.map((e) => e.subject),
    ...(role.sends ?? []).map((s) => s.subject('>')),
    ...repliesTo,
    ...(role.kv ?? []).map((b) => `$KV.${b}.>`),
    ...(role.objects ?? []).filter((o) => o.write).map((o) => `$O.${o.bucket}.>`),
    ...(usesJetStream ? ['$JS.API.INFO', ...[...streams].flatMap(streamApi)] : []),
  ];
  const subscribe = [
    `${inboxPrefix(user)}.>`,
    ...answers.map((c) => c.subject),
    ...(role.hears ?? []).map((e) => e.subject),
    ...(role.receives ?? []).map((s) => s.subject('>')),
  ];
  return { publish: { allow: unique(publish) }, subscribe: { allow: unique(subscribe) } };
}

function unique(subjects: string[]): string[] {
  return [...new Set(subjects)];
}

/** The environment variable that holds a bus user's password, in nats-server's config and in deploy/. */
export function passwordVariable(user: BusUser): string {
  return `${user.toUpperCase().replace(/-/g, '_')}_NATS_PASSWORD`;
}

/** A user outside the platform's roles, with no restriction (the tests' observer of the bus). */
export interface UnrestrictedUser {
  user: string;
  password: string;
}

/**
 * nats-server's `authorization` block: one user per process kind with the permissions above. Each
 * password is the value of `passwords[user]`, or, when `passwords` is not given, a reference to the
 * environment variable `passwordVariable(user)` (resolved by nats-server at start).
 */
export function natsServerAuthorization(
  passwords?: Readonly<Record<BusUser, string>>,
  unrestricted: UnrestrictedUser[] = [],
): string {
  const users = BUS_USERS.map((user) => {
    const password = passwords ? JSON.stringify(passwords[user]) : `$${passwordVariable(user)}`;
    const permissions = natsPermissions(
      user,
      unrestricted.map((u) => u.user),
    );
    return `    {\n      user: ${JSON.stringify(user)}\n      password: ${password}\n      permissions: ${block(permissions, 6)}\n    }`;
  });
  for (const u of unrestricted)
    users.push(`    { user: ${JSON.stringify(u.user)}, password: ${JSON.stringify(u.password)} }`);
  return `authorization {\n  users: [\n${users.join('\n')}\n  ]\n}\n`;
}

/** Renders a permissions object in nats-server's config syntax (JSON-like, quoted subjects). */
function block(value: unknown, indent: number): string {
  const pad = ' '.repeat(indent);
  if (Array.isArray(value)) return `[\n${value.map((v) => `${pad}  ${JSON.stringify(v)}`).join('\n')}\n${pad}]`;
  if (typeof value === 'object' && value !== null) {
    const lines = Object.entries(value).map(([k, v]) => `${pad}  ${k}: ${block(v, indent + 2)}`);
    return `{\n${lines.join('\n')}\n${pad}}`;
  }
  return JSON.stringify(value);
}
