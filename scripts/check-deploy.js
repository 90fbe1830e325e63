#!/usr/bin/env node
// `pnpm check:deploy`: checks deploy/ and docker-compose.yml offline, in a few seconds.
//
//  1. Builds deploy/base and both overlays with kustomize (`kubectl kustomize`, kustomize v5+).
//  2. Validates every rendered manifest against the Kubernetes OpenAPI schemas shipped by the npm
//     package kubernetes-models (types, required fields, enums, formats), then walks it against the
//     same package's TypeScript types, which the JSON schemas leave open, so that an unknown or
//     misspelt field fails too (as `kubectl apply --validate=strict` would on a cluster). Only API
//     versions a current cluster serves are accepted: the package also carries removed ones.
//  3. Checks the rules the manifests promise (docs/operations.md): security context, resources,
//     probes, graceful stop, labels, references between objects, selectors, and the network policy
//     (default deny; ingress from outside only to the gateway; egress ports per app).
//  4. Validates docker-compose.yml against the Compose Specification JSON schema (as shipped in the
//     npm package dclint: schemas/compose.schema.json, from github.com/compose-spec/compose-spec).
//
// Environment: KUSTOMIZE="kustomize" or KUSTOMIZE="kubectl kustomize" picks the builder; by default
// a `kustomize` on PATH, else `kubectl kustomize`.
'use strict';

const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const YAML = require('yaml');

const ROOT = path.join(__dirname, '..');
const started = Date.now();

/**
 * What is built; whether it may reference Secrets it does not render (created out of band), the
 * namespace every object must land in, and whether every image must carry a tag or digest.
 */
const BUILDS = [
  // The base on its own: images are pinned by the overlays, not here.
  { name: 'base', dir: 'deploy/base', externalSecrets: true, namespace: undefined, pinnedImages: false },
  { name: 'dev', dir: 'deploy/overlays/dev', externalSecrets: false, namespace: 'bastion-dev', pinnedImages: true },
  { name: 'prod', dir: 'deploy/overlays/prod', externalSecrets: true, namespace: 'bastion', pinnedImages: true },
];

/**
 * API versions a current Kubernetes serves as GA. kubernetes-models also carries APIs that were
 * removed (extensions/v1beta1, policy/v1beta1, autoscaling/v2beta2, ...), which no cluster accepts.
 */
const SERVED_API_VERSIONS = new Set([
  'v1',
  'apps/v1',
  'batch/v1',
  'autoscaling/v1',
  'autoscaling/v2',
  'policy/v1',
  'networking.k8s.io/v1',
  'rbac.authorization.k8s.io/v1',
  'storage.k8s.io/v1',
  'scheduling.k8s.io/v1',
  'coordination.k8s.io/v1',
  'discovery.k8s.io/v1',
  'admissionregistration.k8s.io/v1',
  'apiextensions.k8s.io/v1',
  'node.k8s.io/v1',
  'certificates.k8s.io/v1',
  'events.k8s.io/v1',
  'flowcontrol.apiserver.k8s.io/v1',
]);

/**
 * The network design, per app (app.kubernetes.io/name): the only TCP/UDP ports each may reach.
 * 443 goes to the internet: providers and message-proxy call model providers, and in prod the
 * gateway fetches the OIDC issuer's JWKS. Postgres and NATS in the dev overlay reach no one.
 */
const EGRESS_PORTS = {
  gateway: [53, 4222, 443],
  tokens: [53, 4222, 5432],
  providers: [53, 4222, 5432, 443],
  projects: [53, 4222, 5432],
  prompts: [53, 4222, 5432],
  'message-proxy': [53, 4222, 443],
  migrate: [53, 5432],
  postgres: [],
  nats: [],
};
/** The only app that takes traffic from outside the namespace (beyond metrics scrapes). */
const PUBLIC_APP = 'gateway';

const WORKLOAD_KINDS = new Set(['Deployment', 'StatefulSet', 'DaemonSet', 'Job']);

// ---------------------------------------------------------------------------------------------
// Reporting

const failures = [];
let passed = 0;

function report(label, errors) {
  if (errors.length === 0) {
    passed += 1;
    console.log(`  ok    ${label}`);
    return;
  }
  failures.push(label);
  console.log(`  FAIL  ${label}`);
  for (const e of errors) console.log(`          - ${e}`);
}

function fatal(message) {
  console.error(`check-deploy: ${message}`);
  process.exit(1);
}

// ---------------------------------------------------------------------------------------------
// kustomize

function kustomizeCommand() {
  const fromEnv = process.env.KUSTOMIZE?.trim();
  const candidates = fromEnv ? [fromEnv.split(/\s+/)] : [['kustomize'], ['kubectl', 'kustomize']];
  for (const [cmd, ...args] of candidates) {
    let version;
    try {
      version =
        path.basename(cmd) === 'kubectl'
          ? JSON.parse(
              execFileSync(cmd, ['version', '--client', '-o', 'json'], {
                encoding: 'utf8',
                stdio: ['ignore', 'pipe', 'ignore'],
              }),
            ).kustomizeVersion
          : execFileSync(cmd, ['version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      continue; // not installed
    }
    const major = Number(/v?(\d+)\./.exec(version ?? '')?.[1]);
    if (!(major >= 5)) {
      fatal(
        `${[cmd, ...args].join(' ')} embeds kustomize ${version || '(unknown version)'}; the manifests need kustomize v5 or newer ` +
          "(kubectl 1.27+). Debian bookworm's kubernetes-client is kubectl 1.20 (kustomize v2): too old.",
      );
    }
    return {
      argv: [cmd, ...args],
      version: `${[cmd, ...args].join(' ')} (kustomize ${version.replace(/^kustomize\//, '')})`,
    };
  }
  fatal('no kustomize found: install kubectl 1.27+ or kustomize v5+, or set KUSTOMIZE="/path/to/kustomize"');
}

function build(kustomize, dir) {
  const [cmd, ...args] = kustomize.argv;
  try {
    return execFileSync(cmd, [...args, path.join(ROOT, dir)], {
      encoding: 'utf8',
      maxBuffer: 64 << 20,
      timeout: 60_000,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (err) {
    const why = (err.stderr || err.message || '').toString().trim();
    return { error: why };
  }
}

function parseDocuments(text) {
  const docs = [];
  const errors = [];
  for (const doc of YAML.parseAllDocuments(text)) {
    if (doc.errors.length) errors.push(...doc.errors.map((e) => e.message));
    const value = doc.toJS();
    if (value != null) docs.push(value);
  }
  return { docs, errors };
}

// ---------------------------------------------------------------------------------------------
// Schema validation: kubernetes-models (JSON schema) + its TypeScript types (unknown fields)

function modulePath({ apiVersion, kind }) {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : [undefined, apiVersion];
  return `kubernetes-models/${group ? `${group}/` : ''}${version}/${kind}`;
}

async function loadModel(obj) {
  try {
    const mod = await import(modulePath(obj));
    return mod[obj.kind];
  } catch {
    return undefined;
  }
}

/**
 * kustomize wraps long base64 values (Secret data) at 70 columns; the API server's decoder skips
 * line breaks, the package's "byte" format does not: unwrap them before validating.
 */
function unwrapBase64(obj) {
  const field = obj.kind === 'Secret' ? 'data' : obj.kind === 'ConfigMap' ? 'binaryData' : undefined;
  if (!field || !obj[field]) return obj;
  const unwrapped = Object.fromEntries(
    Object.entries(obj[field]).map(([k, v]) => [k, typeof v === 'string' ? v.replace(/[\r\n]/g, '') : v]),
  );
  return { ...obj, [field]: unwrapped };
}

function schemaErrors(Model, obj) {
  try {
    new Model(unwrapBase64(obj)).validate();
    return [];
  } catch (err) {
    if (Array.isArray(err.errors) && err.errors.length) {
      return err.errors.map(
        (e) =>
          `schema: ${e.instancePath || '/'} ${e.message}${e.params?.allowedValues ? ` (${e.params.allowedValues.join(', ')})` : ''}`,
      );
    }
    return [`schema: ${err.message}`];
  }
}

/**
 * The JSON schemas do not close objects (no additionalProperties: false), so a misspelt field
 * passes them. The package's .d.ts types are closed: walk each object against its interface.
 */
function createFieldChecker(objects) {
  const ts = require('typescript');
  const kinds = [...new Map(objects.map((o) => [`${o.apiVersion}|${o.kind}`, o])).values()];
  const file = path.join(ROOT, 'scripts', '__check_deploy_types__.mts');
  const source = kinds
    .map((o, i) => `import type { I${o.kind} as T${i} } from '${modulePath(o)}';\nexport declare const v${i}: T${i};`)
    .join('\n');
  const options = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
  };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (f, lang, ...rest) =>
    f === file ? ts.createSourceFile(f, source, lang) : getSourceFile.call(host, f, lang, ...rest);
  host.fileExists = (f) => f === file || fileExists.call(host, f);
  host.readFile = (f) => (f === file ? source : readFile.call(host, f));
  const program = ts.createProgram([file], options, host);
  const checker = program.getTypeChecker();
  const sf = program.getSourceFile(file);
  const typeOf = new Map();
  for (const stmt of sf.statements) {
    if (!ts.isVariableStatement(stmt)) continue;
    const decl = stmt.declarationList.declarations[0];
    const i = Number(decl.name.text.slice(1));
    typeOf.set(`${kinds[i].apiVersion}|${kinds[i].kind}`, checker.getTypeAtLocation(decl.name));
  }
  const propType = (sym) => checker.getTypeOfSymbolAtLocation(sym, sf);
  const isObjectType = (t) => Boolean(t.flags & ts.TypeFlags.Object) || t.isIntersection();

  function walk(value, type, at, errors) {
    if (value === null || value === undefined || typeof value !== 'object') return; // scalars: the JSON schema's job
    if (type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return;
    type = checker.getNonNullableType(type);
    if (type.isUnion()) {
      const fits = type.types.filter((t) =>
        Array.isArray(value) ? checker.isArrayType(t) : isObjectType(t) && !checker.isArrayType(t),
      );
      if (fits.length === 1) walk(value, fits[0], at, errors);
      return; // none (the schema reports the type) or several shapes (nothing certain to say)
    }
    if (Array.isArray(value)) {
      if (checker.isArrayType(type)) {
        const element = checker.getTypeArguments(type)[0];
        value.forEach((v, i) => walk(v, element, `${at}[${i}]`, errors));
      }
      return;
    }
    if (!isObjectType(type)) return;
    const index = checker.getIndexInfosOfType(type).find((info) => info.keyType.flags & ts.TypeFlags.String);
    for (const [key, v] of Object.entries(value)) {
      const prop = checker.getPropertyOfType(type, key);
      const here = at ? `${at}.${key}` : key;
      if (prop) walk(v, propType(prop), here, errors);
      else if (index) walk(v, index.type, here, errors);
      else
        errors.push(
          `unknown field ${here} (${checker.typeToString(type).replace(/^IIoK8s\w*?V\d\w*?(?=[A-Z][a-z])/, '')} has no "${key}")`,
        );
    }
  }

  return (obj) => {
    const type = typeOf.get(`${obj.apiVersion}|${obj.kind}`);
    const errors = [];
    if (type) walk(obj, type, '', errors);
    return errors;
  };
}

// ---------------------------------------------------------------------------------------------
// The manifests' own rules

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

function podSpecOf(obj) {
  if (obj.kind === 'Job') return obj.spec?.template;
  if (WORKLOAD_KINDS.has(obj.kind)) return obj.spec?.template;
  return undefined;
}

function matches(selector, labels = {}) {
  if (!selector) return false;
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const { key, operator, values = [] } of selector.matchExpressions ?? []) {
    const has = Object.prototype.hasOwnProperty.call(labels, key);
    if (operator === 'In' && !(has && values.includes(labels[key]))) return false;
    if (operator === 'NotIn' && has && values.includes(labels[key])) return false;
    if (operator === 'Exists' && !has) return false;
    if (operator === 'DoesNotExist' && has) return false;
  }
  return true;
}

/** Quantity to a number (cpu in cores, memory in bytes), for request <= limit. */
function quantity(q) {
  const m = /^([0-9.]+)(m|k|M|G|T|Ki|Mi|Gi|Ti)?$/.exec(String(q));
  if (!m) return NaN;
  const scale =
    { m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40 }[m[2]] ?? 1;
  return Number(m[1]) * scale;
}

function checkMetadata(obj, build, errors) {
  const md = obj.metadata ?? {};
  const nameRule = ['Service', 'Namespace'].includes(obj.kind) ? [DNS_LABEL, 63] : [DNS_SUBDOMAIN, 253];
  if (!md.name || !nameRule[0].test(md.name) || md.name.length > nameRule[1])
    errors.push(`metadata.name "${md.name}" is not a valid ${obj.kind} name`);
  const labels = md.labels ?? {};
  if (labels['app.kubernetes.io/part-of'] !== 'bastion')
    errors.push('label app.kubernetes.io/part-of: bastion is missing');
  if (!labels['app.kubernetes.io/name']) errors.push('label app.kubernetes.io/name is missing');
  for (const [k, v] of Object.entries({ ...labels, ...(podSpecOf(obj)?.metadata?.labels ?? {}) })) {
    if (typeof v !== 'string' || v.length > 63 || !LABEL_VALUE.test(v))
      errors.push(`label ${k}: "${v}" is not a valid label value`);
  }
  const namespaced = obj.kind !== 'Namespace';
  if (namespaced && build.namespace && md.namespace !== build.namespace)
    errors.push(`namespace is "${md.namespace}", expected "${build.namespace}"`);
}

function checkWorkload(obj, build, errors) {
  const template = podSpecOf(obj);
  const pod = template?.spec;
  if (!pod) return;
  const podLabels = template.metadata?.labels ?? {};
  if (podLabels['app.kubernetes.io/part-of'] !== 'bastion' || !podLabels['app.kubernetes.io/name']) {
    errors.push('pod template needs labels app.kubernetes.io/name and app.kubernetes.io/part-of: bastion');
  }
  if (obj.spec.selector && !matches(obj.spec.selector, podLabels))
    errors.push('spec.selector does not match the pod template labels');
  if (pod.automountServiceAccountToken !== false)
    errors.push('automountServiceAccountToken should be false (no pod here talks to the Kubernetes API)');
  const psc = pod.securityContext ?? {};
  const volumes = new Map((pod.volumes ?? []).map((v) => [v.name, v]));
  const isBastionServer = podLabels['app.kubernetes.io/component'] === 'server';

  for (const c of [...(pod.initContainers ?? []), ...(pod.containers ?? [])]) {
    const where = `container ${c.name}`;
    const sc = c.securityContext ?? {};
    if ((sc.runAsNonRoot ?? psc.runAsNonRoot) !== true) errors.push(`${where}: runAsNonRoot must be true`);
    const uid = sc.runAsUser ?? psc.runAsUser;
    if (uid === undefined || uid === 0)
      errors.push(`${where}: runAsUser must be a non-zero uid (the kubelet cannot verify a named image user)`);
    if ((sc.seccompProfile ?? psc.seccompProfile)?.type !== 'RuntimeDefault')
      errors.push(`${where}: seccompProfile must be RuntimeDefault`);
    if (sc.allowPrivilegeEscalation !== false) errors.push(`${where}: allowPrivilegeEscalation must be false`);
    if (sc.readOnlyRootFilesystem !== true) errors.push(`${where}: readOnlyRootFilesystem must be true`);
    if (!(sc.capabilities?.drop ?? []).includes('ALL')) errors.push(`${where}: capabilities.drop must include ALL`);
    if (sc.privileged) errors.push(`${where}: must not be privileged`);

    for (const r of ['cpu', 'memory']) {
      const req = c.resources?.requests?.[r];
      const lim = c.resources?.limits?.[r];
      if (req === undefined || lim === undefined)
        errors.push(`${where}: resources.requests.${r} and resources.limits.${r} are required`);
      else if (!(quantity(req) <= quantity(lim))) errors.push(`${where}: ${r} request ${req} exceeds limit ${lim}`);
    }

    const image = String(c.image ?? '');
    const tagged = /@sha256:[0-9a-f]{64}$/.test(image) || /:[\w][\w.-]{0,127}$/.test(image.split('/').pop());
    if (build.pinnedImages && (!tagged || /:latest$/.test(image)))
      errors.push(`${where}: image "${image}" needs a pinned tag or digest (not latest)`);

    if (obj.kind !== 'Job') {
      if (!c.livenessProbe) errors.push(`${where}: livenessProbe is missing`);
      if (!c.readinessProbe) errors.push(`${where}: readinessProbe is missing`);
      const portNames = new Set((c.ports ?? []).map((p) => p.name));
      for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe']) {
        const port = c[probe]?.httpGet?.port ?? c[probe]?.tcpSocket?.port;
        if (typeof port === 'string' && !portNames.has(port))
          errors.push(`${where}: ${probe} uses port "${port}", which the container does not name`);
      }
    }
    for (const m of c.volumeMounts ?? [])
      if (!volumes.has(m.name) && !(obj.spec.volumeClaimTemplates ?? []).some((t) => t.metadata?.name === m.name)) {
        errors.push(`${where}: volumeMount ${m.name} has no volume`);
      }
    if (isBastionServer) {
      const tmp = (c.volumeMounts ?? []).find((m) => m.mountPath === '/tmp');
      if (!tmp || !volumes.get(tmp.name)?.emptyDir)
        errors.push(`${where}: /tmp must be an emptyDir (the root filesystem is read-only)`);
      const preStop = c.lifecycle?.preStop;
      if (!preStop)
        errors.push(`${where}: lifecycle.preStop (a sleep, so routing and NATS subscriptions drain) is missing`);
      const sleep = Number(preStop?.sleep?.seconds ?? preStop?.exec?.command?.[1]);
      const grace = pod.terminationGracePeriodSeconds;
      if (grace === undefined) errors.push('terminationGracePeriodSeconds is not set');
      else if (sleep >= grace)
        errors.push(`preStop sleep ${sleep}s leaves no time of terminationGracePeriodSeconds ${grace}s for draining`);
    }
  }
  if (obj.kind === 'Job') {
    if (!['Never', 'OnFailure'].includes(pod.restartPolicy))
      errors.push('a Job pod needs restartPolicy Never or OnFailure');
    if (obj.spec.backoffLimit === undefined) errors.push('backoffLimit is not set');
  }
}

/** Cross-object rules: references resolve, selectors select, HPAs own their replicas, the network design holds. */
function checkBuild(build, objects) {
  const byKind = (kind) => objects.filter((o) => o.kind === kind);
  const named = (kind, name) => objects.find((o) => o.kind === kind && o.metadata.name === name);
  const workloads = objects.filter((o) => WORKLOAD_KINDS.has(o.kind));
  const errorsFor = new Map(objects.map((o) => [o, []]));
  const external = new Map(); // Secret name -> keys referenced

  const ref = (o, kind, name, key, optional) => {
    const target = named(kind, name);
    if (!target) {
      if (kind === 'Secret' && build.externalSecrets) {
        if (!external.has(name)) external.set(name, new Set());
        if (key) external.get(name).add(optional ? `${key} (optional)` : key);
        return;
      }
      if (!optional) errorsFor.get(o).push(`references ${kind} ${name}, which this build does not contain`);
      return;
    }
    if (key && !optional) {
      const keys = new Set([...Object.keys(target.data ?? {}), ...Object.keys(target.stringData ?? {})]);
      if (!keys.has(key)) errorsFor.get(o).push(`references key ${key} of ${kind} ${name}, which it does not have`);
    }
  };

  for (const w of workloads) {
    const pod = podSpecOf(w).spec;
    if (pod.serviceAccountName) ref(w, 'ServiceAccount', pod.serviceAccountName);
    for (const c of [...(pod.initContainers ?? []), ...pod.containers]) {
      for (const e of c.envFrom ?? []) {
        if (e.configMapRef) ref(w, 'ConfigMap', e.configMapRef.name, undefined, e.configMapRef.optional);
        if (e.secretRef) ref(w, 'Secret', e.secretRef.name, undefined, e.secretRef.optional);
      }
      for (const e of c.env ?? []) {
        const s = e.valueFrom?.secretKeyRef;
        const m = e.valueFrom?.configMapKeyRef;
        if (s) ref(w, 'Secret', s.name, s.key, s.optional);
        if (m) ref(w, 'ConfigMap', m.name, m.key, m.optional);
      }
    }
    for (const v of pod.volumes ?? []) {
      if (v.secret) ref(w, 'Secret', v.secret.secretName, undefined, v.secret.optional);
      if (v.configMap) ref(w, 'ConfigMap', v.configMap.name, undefined, v.configMap.optional);
    }
  }

  const podsMatching = (selector) => workloads.filter((w) => matches(selector, podSpecOf(w).metadata?.labels));

  for (const svc of byKind('Service')) {
    const selected = podsMatching({ matchLabels: svc.spec.selector });
    if (!selected.length) errorsFor.get(svc).push('selects no pods of this build');
    for (const p of svc.spec.ports ?? []) {
      if (typeof p.targetPort !== 'string') continue;
      const named = selected.some((w) =>
        podSpecOf(w).spec.containers.some((c) => (c.ports ?? []).some((cp) => cp.name === p.targetPort)),
      );
      if (selected.length && !named)
        errorsFor.get(svc).push(`targetPort "${p.targetPort}" is not a port name of the selected pods`);
    }
  }
  for (const pdb of byKind('PodDisruptionBudget')) {
    if (!podsMatching(pdb.spec.selector).length) errorsFor.get(pdb).push('selects no pods of this build');
  }
  for (const hpa of byKind('HorizontalPodAutoscaler')) {
    const target = named(hpa.spec.scaleTargetRef.kind, hpa.spec.scaleTargetRef.name);
    if (!target) {
      errorsFor
        .get(hpa)
        .push(`scaleTargetRef ${hpa.spec.scaleTargetRef.kind} ${hpa.spec.scaleTargetRef.name} is not in this build`);
      continue;
    }
    if (target.spec.replicas !== undefined)
      errorsFor
        .get(target)
        .push('sets spec.replicas although an autoscaler owns them (every apply would reset the count)');
    if ((hpa.spec.minReplicas ?? 1) > hpa.spec.maxReplicas) errorsFor.get(hpa).push('minReplicas exceeds maxReplicas');
    for (const m of hpa.spec.metrics ?? []) {
      const r = m.resource?.name;
      if (r && !podSpecOf(target).spec.containers.every((c) => c.resources?.requests?.[r])) {
        errorsFor
          .get(hpa)
          .push(`scales on ${r} utilization, but not every container of ${target.metadata.name} requests ${r}`);
      }
    }
  }

  // Network design.
  const policies = byKind('NetworkPolicy');
  const denyAll = policies.find(
    (p) =>
      Object.keys(p.spec.podSelector ?? {}).length === 0 &&
      ['Ingress', 'Egress'].every((t) => (p.spec.policyTypes ?? []).includes(t)) &&
      !p.spec.ingress &&
      !p.spec.egress,
  );
  if (policies.length && !denyAll)
    errorsFor.get(policies[0]).push('no default-deny NetworkPolicy (empty podSelector, Ingress and Egress, no rules)');
  for (const p of policies) {
    if (p === denyAll) continue;
    const errors = errorsFor.get(p);
    const apps = podsMatching(p.spec.podSelector).map((w) => podSpecOf(w).metadata.labels['app.kubernetes.io/name']);
    if (!apps.length) errors.push('selects no pods of this build');
    for (const rule of p.spec.ingress ?? []) {
      const outside = !rule.from || rule.from.some((f) => f.ipBlock);
      if (outside && apps.some((a) => a !== PUBLIC_APP))
        errors.push(`lets traffic from outside reach ${apps.join(', ')}; only the ${PUBLIC_APP} takes it`);
    }
    for (const rule of p.spec.egress ?? []) {
      if (!rule.ports?.length) errors.push('an egress rule without ports opens every port');
      for (const { port } of rule.ports ?? []) {
        for (const a of apps) {
          if (!(EGRESS_PORTS[a] ?? []).includes(port))
            errors.push(
              `lets ${a} reach port ${port}; its allowed egress ports are ${(EGRESS_PORTS[a] ?? []).join(', ') || 'none'}`,
            );
        }
      }
    }
  }
  if (policies.length) {
    for (const w of workloads) {
      const covered = policies.some((p) => p !== denyAll && matches(p.spec.podSelector, podSpecOf(w).metadata.labels));
      if (!covered) errorsFor.get(w).push('no NetworkPolicy of its own: the default deny cuts it off entirely');
    }
  }
  return { errorsFor, external };
}

// ---------------------------------------------------------------------------------------------
// docker-compose.yml

function checkCompose() {
  const Ajv = require('ajv');
  const schemaFile = path.join(path.dirname(require.resolve('dclint/package.json')), 'schemas', 'compose.schema.json');
  const schema = JSON.parse(fs.readFileSync(schemaFile, 'utf8'));
  delete schema.$schema; // draft-07 under an https id Ajv does not know by that name; Ajv's default is draft-07
  const ajv = new Ajv({ allErrors: true, strict: false });
  const validate = ajv.compile(schema);
  const file = path.join(ROOT, 'docker-compose.yml');
  const errors = [];
  let doc;
  try {
    const parsed = YAML.parseDocument(fs.readFileSync(file, 'utf8'), { merge: true }); // `<<: *anchor`, as Compose reads it
    if (parsed.errors.length) errors.push(...parsed.errors.map((e) => `yaml: ${e.message}`));
    doc = parsed.toJS({ maxAliasCount: 1000 });
  } catch (err) {
    errors.push(`yaml: ${err.message}`);
  }
  if (doc && !validate(doc)) {
    for (const e of validate.errors) {
      if (e.keyword === 'oneOf') continue; // the alternatives' own errors say more
      const detail = e.params?.additionalProperty
        ? ` "${e.params.additionalProperty}"`
        : e.params?.allowedValues
          ? ` (${e.params.allowedValues.join(', ')})`
          : '';
      errors.push(`schema: ${e.instancePath || '/'} ${e.message}${detail}`);
    }
  }
  return { errors, schemaFile: `dclint ${require('dclint/package.json').version}, schemas/compose.schema.json` };
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const kustomize = kustomizeCommand();
  const kmVersion = require('kubernetes-models/package.json').version;
  console.log(`check-deploy: ${kustomize.version}; schemas from kubernetes-models ${kmVersion}`);

  const rendered = [];
  for (const b of BUILDS) {
    const out = build(kustomize, b.dir);
    if (typeof out !== 'string') {
      report(`${b.name}: kustomize build ${b.dir}`, [out.error]);
      continue;
    }
    const { docs, errors } = parseDocuments(out);
    report(`${b.name}: kustomize build ${b.dir} (${docs.length} objects)`, errors);
    rendered.push({ build: b, objects: docs });
  }

  const checkFields = createFieldChecker(rendered.flatMap((r) => r.objects).filter((o) => o && o.apiVersion && o.kind));
  for (const { build: b, objects } of rendered) {
    console.log(`\n${b.name} (${b.dir}):`);
    const { errorsFor, external } = checkBuild(b, objects);
    for (const obj of objects) {
      const errors = [];
      const label = `${b.name}: ${obj.apiVersion ?? '?'} ${obj.kind ?? '?'} ${obj.metadata?.namespace ? `${obj.metadata.namespace}/` : ''}${obj.metadata?.name ?? '?'}`;
      if (!obj.apiVersion || !obj.kind) {
        report(label, ['apiVersion and kind are required']);
        continue;
      }
      if (!SERVED_API_VERSIONS.has(obj.apiVersion))
        errors.push(`${obj.apiVersion} is not a GA API version a current Kubernetes serves`);
      const Model = await loadModel(obj);
      if (!Model) errors.push(`no schema for ${obj.apiVersion} ${obj.kind} in kubernetes-models (built-in kinds only)`);
      else errors.push(...schemaErrors(Model, obj), ...checkFields(obj));
      checkMetadata(obj, b, errors);
      checkWorkload(obj, b, errors);
      errors.push(...errorsFor.get(obj));
      report(label, errors);
    }
    for (const [name, keys] of external) {
      console.log(
        `  note  ${b.name}: expects Secret ${name} to exist, with keys: ${[...keys].join(', ') || '(any, via envFrom)'}`,
      );
    }
  }

  console.log('\ndocker-compose.yml:');
  const compose = checkCompose();
  report(`docker-compose.yml against the Compose Specification (${compose.schemaFile})`, compose.errors);

  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`\ncheck-deploy: ${failures.length ? `${failures.length} failed` : 'all valid'} in ${seconds}s`);
  console.log(`deploy: ${passed} passed, ${failures.length} failed`);
  if (failures.length) process.exit(1);
}

main().catch((err) => fatal(err.stack || err.message));
