import { ApiKeySubjects } from '../keys/api-key.subjects';
import { ProjectSubjects, ScannerSubjects } from '../projects/projects.subjects';
import { PromptSubjects } from '../prompts/prompt.subjects';
import { ProviderSubjects } from '../providers/provider.subjects';
import { bulkSubject, ProxySubjects } from '../proxy/proxy.subjects';
import { TokenSubjects } from '../tokens/token.subjects';
import { ANY_KIND, type RpcRule, TENANT_KINDS, USER_KINDS } from './access-policy';

const INTERNAL: RpcRule = { internal: true };
const read = (kinds = TENANT_KINDS): RpcRule => ({ role: 'viewer', kinds });
const write = (kinds = TENANT_KINDS): RpcRule => ({ role: 'member', kinds });
const admin = (kinds = TENANT_KINDS): RpcRule => ({ role: 'admin', kinds });
/** Sending text to be scanned or to a model: it spends the tenant's quota, so viewers may not. */
const spend = write(ANY_KIND);
/** The message proxy's requests that carry a client's text: on either lane, under the same rule. */
const TEXT_CARRYING = [
  ProxySubjects.messages,
  ProxySubjects.messagesStream,
  ProxySubjects.chat,
  ProxySubjects.chatStream,
  ProxySubjects.sendPrompt,
  ProxySubjects.scan,
];

/**
 * THE authorization policy, by operation: every NATS request a service answers, with the least
 * role and the principal kinds that may ask for it. Every service enforces it with the same guard
 * (RpcAccessGuard); the gateway's route table (apps/gateway/src/access) takes each route's rule from
 * here. README.md shows both tables.
 *
 * Project-scoped principals (project JWTs and project keys) reach only what runs through or reads
 * their own project; the services narrow those operations to that project.
 */
export const RPC_POLICY: Readonly<Record<string, RpcRule>> = {
  // Site admission (ves.io.schema.token): the tenant's, never a project's. Whoever this policy does
  // not let create a token reads tokens and registrations with their admission secrets blank (the
  // tokens service's readsAdmissionSecrets asks this rule).
  [TokenSubjects.create]: write(),
  [TokenSubjects.replace]: write(),
  [TokenSubjects.list]: read(),
  [TokenSubjects.get]: read(),
  [TokenSubjects.delete]: admin(),
  [TokenSubjects.setState]: admin(),
  [TokenSubjects.cloudInit]: write(),
  [TokenSubjects.listRegistrations]: read(),
  [TokenSubjects.deleteRegistration]: admin(),
  [TokenSubjects.registrationsByToken]: read(),
  [TokenSubjects.register]: INTERNAL,
  [TokenSubjects.jwks]: INTERNAL,
  [TokenSubjects.health]: INTERNAL,

  // API keys: made and revoked by people only (USER_KINDS); keys may read the list.
  [ApiKeySubjects.create]: admin(USER_KINDS),
  [ApiKeySubjects.list]: read(),
  [ApiKeySubjects.get]: read(),
  [ApiKeySubjects.delete]: admin(USER_KINDS),
  [ApiKeySubjects.resolve]: INTERNAL,

  // Through a project's guardrails.
  ...Object.fromEntries(TEXT_CARRYING.map((subject) => [subject, spend])),
  [ProxySubjects.health]: INTERNAL,
  // The same requests on the bulk lane (large texts, PROXY_BULK_PREFIX), under the same rules.
  ...Object.fromEntries(TEXT_CARRYING.map((subject) => [bulkSubject(subject), spend])),

  // The prompt store.
  [PromptSubjects.list]: read(ANY_KIND),
  [PromptSubjects.get]: read(ANY_KIND),
  [PromptSubjects.getScan]: read(ANY_KIND),
  [PromptSubjects.createTemplate]: write(ANY_KIND),
  [PromptSubjects.getTemplate]: read(ANY_KIND),
  [PromptSubjects.templateInput]: INTERNAL,
  [PromptSubjects.health]: INTERNAL,

  // Providers (secret-bearing configuration).
  [ProviderSubjects.listSystem]: read(),
  [ProviderSubjects.getSystem]: read(),
  [ProviderSubjects.create]: write(),
  [ProviderSubjects.list]: read(),
  [ProviderSubjects.get]: read(),
  [ProviderSubjects.update]: write(),
  [ProviderSubjects.delete]: admin(),
  [ProviderSubjects.test]: write(),
  [ProviderSubjects.runtime]: INTERNAL,
  [ProviderSubjects.health]: INTERNAL,

  // Projects: a project principal may read its own project, nothing else.
  [ProjectSubjects.create]: write(),
  [ProjectSubjects.list]: read(),
  [ProjectSubjects.get]: read(ANY_KIND),
  [ProjectSubjects.update]: write(),
  [ProjectSubjects.delete]: admin(),
  [ProjectSubjects.attachGuardrail]: write(),
  [ProjectSubjects.updateGuardrail]: write(),
  [ProjectSubjects.attachProvider]: write(),
  [ProjectSubjects.updateProvider]: write(),
  [ProjectSubjects.detach]: write(),
  [ProjectSubjects.attachById]: write(),
  [ProjectSubjects.global]: read(ANY_KIND),
  [ProjectSubjects.runtime]: INTERNAL,
  [ProjectSubjects.health]: INTERNAL,

  // Scanners (guardrails), their versions and dataset evaluations.
  [ScannerSubjects.create]: write(),
  [ScannerSubjects.list]: read(),
  [ScannerSubjects.get]: read(),
  [ScannerSubjects.update]: write(),
  [ScannerSubjects.delete]: admin(),
  [ScannerSubjects.listVersions]: read(),
  [ScannerSubjects.getVersion]: read(),
  [ScannerSubjects.updateVersion]: write(),
  [ScannerSubjects.stageDataset]: write(),
  [ScannerSubjects.evaluate]: write(),
  [ScannerSubjects.listEvaluations]: read(),
  [ScannerSubjects.listPackages]: read(),
};

/** The rule of one operation; throws for a subject the policy does not name (a programming error). */
export function rpcRule(subject: string): RpcRule {
  const rule = RPC_POLICY[subject];
  if (!rule) throw new Error(`no rule for ${subject} in the RPC policy (libs/auth/src/rpc-policy.ts)`);
  return rule;
}
