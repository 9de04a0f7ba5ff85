// Offline check of the manifests under deploy/: run from the repository root
// as `node tests/deploy/validate.mjs` (after `npm ci --prefix tests/deploy`).
//
// 1. Schema: core kinds go through kubernetes-models' validators. Those
//    validators check types and required fields but ignore unknown fields,
//    so each field is also probed: its value is replaced by [[]] (valid for
//    no Kubernetes field type) and the validator must then complain at that
//    path; a field it says nothing about is not in the schema (a typo such
//    as readOnlyRootFilesytem). The agent-sandbox kinds get a check of their
//    own top-level shape (from the project's v1alpha1 Go types) and their
//    podTemplate.spec is validated as a core PodSpec.
// 2. Policy: every container is locked down, probes hit /healthz and
//    /readyz, the grace period outlasts the drain, and a NetworkPolicy
//    confines the bsh pods (Ingress+Egress, no egress, gateway-only ingress).
// 3. Self-test: broken objects made in memory must be rejected, or the run
//    fails.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { Namespace, Secret, Service, PodSpec } from 'kubernetes-models/v1';
import { ObjectMeta } from '@kubernetes-models/apimachinery/apis/meta/v1/ObjectMeta';
import { Deployment } from 'kubernetes-models/apps/v1';
import {
  NetworkPolicy,
  NetworkPolicyIngressRule,
  NetworkPolicyEgressRule,
} from 'kubernetes-models/networking.k8s.io/v1';

const GATEWAY = { 'app.kubernetes.io/component': 'mcp-gateway' };
const BSH = { 'app.kubernetes.io/name': 'bsh' };
const PORT = 8080;
const DRAIN_MS_DEFAULT = 10000;

const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const ptr = (k) => String(k).replace(/~/g, '~0').replace(/\//g, '~1');

// --- schema -------------------------------------------------------------

function modelErrors(Model, obj) {
  try {
    new Model(structuredClone(obj)).validate();
    return [];
  } catch (e) {
    if (!Array.isArray(e.errors)) throw e;
    return e.errors.map((x) => `${x.instancePath || '/'} ${x.message}`);
  }
}

function probeErrors(Model, root) {
  try {
    new Model(structuredClone(root)).validate();
    return [];
  } catch (e) {
    if (!Array.isArray(e.errors)) throw e;
    return e.errors.map((x) => x.instancePath);
  }
}

// Paths of fields the model's schema does not know.
function unknownFields(Model, root) {
  const unknown = [];
  const walk = (node, path) => {
    if (Array.isArray(node)) {
      node.forEach((v, i) => walk(v, [...path, i]));
      return;
    }
    if (!isObj(node)) return;
    for (const key of Object.keys(node)) {
      const probe = structuredClone(root);
      let at = probe;
      for (const p of path) at = at[p];
      at[key] = [[]];
      const where = '/' + [...path, key].map(ptr).join('/');
      const hit = probeErrors(Model, probe).some(
        (p) => p === where || p.startsWith(where + '/'),
      );
      if (!hit) unknown.push(`${where} is not a field of ${Model.name}`);
      else walk(node[key], [...path, key]);
    }
  };
  walk(root, []);
  return unknown;
}

function schema(Model, obj) {
  const errs = modelErrors(Model, obj);
  return errs.length ? errs : unknownFields(Model, obj);
}

// Allowed keys of the agent-sandbox v1alpha1 kinds, from that project's Go
// types for v1alpha1 (Sandbox; SandboxTemplate and SandboxClaim).
const T = {
  str: (v) => typeof v === 'string' || 'must be a string',
  bool: (v) => typeof v === 'boolean' || 'must be a boolean',
  int: (v) => Number.isInteger(v) || 'must be an integer',
  oneOf: (...xs) => (v) => xs.includes(v) || `must be one of ${xs.join(', ')}`,
  map: (v) => (isObj(v) && Object.values(v).every((x) => typeof x === 'string')) || 'must be a map of strings',
};
const podMetadata = { labels: T.map, annotations: T.map };
const podTemplate = { metadata: podMetadata, spec: PodSpec, $required: ['spec'] };
const networkPolicySpec = {
  ingress: [NetworkPolicyIngressRule],
  egress: [NetworkPolicyEgressRule],
};
const SHAPES = {
  'agents.x-k8s.io/v1alpha1 Sandbox': {
    podTemplate,
    volumeClaimTemplates: [{}],
    shutdownTime: T.str,
    shutdownPolicy: T.oneOf('Delete', 'Retain'),
    replicas: (v) => v === 0 || v === 1 || 'must be 0 or 1',
    service: T.bool,
    $required: ['podTemplate'],
  },
  'extensions.agents.x-k8s.io/v1alpha1 SandboxTemplate': {
    podTemplate,
    volumeClaimTemplates: [{}],
    networkPolicy: networkPolicySpec,
    networkPolicyManagement: T.oneOf('Managed', 'Unmanaged'),
    envVarsInjectionPolicy: T.oneOf('Allowed', 'Overrides', 'Disallowed'),
    service: T.bool,
    $required: ['podTemplate'],
  },
  'extensions.agents.x-k8s.io/v1alpha1 SandboxClaim': {
    sandboxTemplateRef: { name: T.str, $required: ['name'] },
    lifecycle: {
      shutdownTime: T.str,
      ttlSecondsAfterFinished: T.int,
      shutdownPolicy: T.oneOf('Delete', 'DeleteForeground', 'Retain'),
    },
    warmpool: T.str,
    additionalPodMetadata: podMetadata,
    env: [{ name: T.str, value: T.str, containerName: T.str, $required: ['name', 'value'] }],
    $required: ['sandboxTemplateRef'],
  },
};

function shape(spec, value, path, errs) {
  if (typeof spec === 'function' && spec.prototype && typeof spec.prototype.validate === 'function') {
    for (const e of schema(spec, value)) errs.push(`${path}${e.startsWith('/') ? '' : ' '}${e}`);
    return;
  }
  if (typeof spec === 'function') {
    const r = spec(value);
    if (r !== true) errs.push(`${path} ${r}`);
    return;
  }
  if (Array.isArray(spec)) {
    if (!Array.isArray(value)) return errs.push(`${path} must be an array`);
    value.forEach((v, i) => shape(spec[0], v, `${path}/${i}`, errs));
    return;
  }
  if (!isObj(value)) return errs.push(`${path} must be an object`);
  for (const k of spec.$required || []) if (!(k in value)) errs.push(`${path}/${k} is required`);
  const known = Object.keys(spec).filter((k) => k !== '$required');
  if (known.length === 0) return; // opaque (e.g. a PVC template)
  for (const [k, v] of Object.entries(value)) {
    if (!(k in spec) || k === '$required') errs.push(`${path}/${ptr(k)} is not a field of this kind`);
    else shape(spec[k], v, `${path}/${ptr(k)}`, errs);
  }
}

const CORE = {
  'v1 Namespace': Namespace,
  'v1 Secret': Secret,
  'v1 Service': Service,
  'apps/v1 Deployment': Deployment,
  'networking.k8s.io/v1 NetworkPolicy': NetworkPolicy,
};

function schemaCheck(obj) {
  const key = `${obj?.apiVersion} ${obj?.kind}`;
  if (CORE[key]) return schema(CORE[key], obj);
  const spec = SHAPES[key];
  if (!spec) return [`no check for kind ${key}`];
  const errs = [];
  for (const k of Object.keys(obj)) {
    if (!['apiVersion', 'kind', 'metadata', 'spec'].includes(k)) errs.push(`/${k} is not a field of ${obj.kind}`);
  }
  for (const e of schema(ObjectMeta, obj.metadata ?? {})) errs.push(`/metadata${e}`);
  if (!obj.metadata?.name) errs.push('/metadata/name is required');
  shape(spec, obj.spec, '/spec', errs);
  return errs;
}

// --- policy -------------------------------------------------------------

function podOf(obj) {
  if (obj.kind === 'Deployment') return { spec: obj.spec?.template?.spec, labels: obj.spec?.template?.metadata?.labels, at: '/spec/template' };
  if (obj.kind === 'Sandbox' || obj.kind === 'SandboxTemplate') return { spec: obj.spec?.podTemplate?.spec, labels: obj.spec?.podTemplate?.metadata?.labels, at: '/spec/podTemplate' };
  return null;
}

const matches = (selector, labels) =>
  isObj(selector) && Object.keys(selector).length > 0 &&
  Object.entries(selector).every(([k, v]) => labels?.[k] === v);

function containerPolicy(c, where, pod) {
  const errs = [];
  const sc = c.securityContext;
  const psc = pod.securityContext ?? {};
  if (!isObj(sc)) return [`${where}: no securityContext`];
  if (sc.readOnlyRootFilesystem !== true) errs.push(`${where}: readOnlyRootFilesystem is not true`);
  if ((sc.runAsNonRoot ?? psc.runAsNonRoot) !== true) errs.push(`${where}: runAsNonRoot is not true`);
  const uid = sc.runAsUser ?? psc.runAsUser;
  if (uid !== 65534) errs.push(`${where}: runAsUser is ${uid}, not 65534`);
  if (sc.allowPrivilegeEscalation !== false) errs.push(`${where}: allowPrivilegeEscalation is not false`);
  if (sc.privileged === true) errs.push(`${where}: privileged`);
  const drop = sc.capabilities?.drop ?? [];
  if (!drop.includes('ALL')) errs.push(`${where}: capabilities.drop lacks ALL`);
  if ((sc.capabilities?.add ?? []).length) errs.push(`${where}: capabilities.add is not empty`);
  if ((sc.seccompProfile ?? psc.seccompProfile)?.type !== 'RuntimeDefault') errs.push(`${where}: seccompProfile is not RuntimeDefault`);
  if (!c.resources?.requests || !c.resources?.limits) errs.push(`${where}: resources.requests and .limits are required`);
  return errs;
}

function podPolicy(obj) {
  const pod = podOf(obj);
  if (!pod) return [];
  const errs = [];
  const s = pod.spec;
  const at = `${pod.at}/spec`;
  if (!isObj(s)) return [`${at}: missing`];
  if (!matches(BSH, pod.labels)) errs.push(`${pod.at}/metadata/labels: app.kubernetes.io/name is not bsh`);
  if (s.automountServiceAccountToken !== false) errs.push(`${at}: automountServiceAccountToken is not false`);
  if (s.hostNetwork || s.hostPID || s.hostIPC) errs.push(`${at}: host namespaces are shared`);
  const all = [...(s.initContainers ?? []).map((c) => ['initContainers', c]), ...(s.containers ?? []).map((c) => ['containers', c])];
  for (const [list, c] of all) errs.push(...containerPolicy(c, `${at}/${list}/${c.name}`, s));
  const bsh = (s.containers ?? []).find((c) => c.name === 'bsh');
  if (!bsh) return [...errs, `${at}/containers: no container named bsh`];
  const w = `${at}/containers/bsh`;
  if (bsh.livenessProbe?.httpGet?.path !== '/healthz') errs.push(`${w}: livenessProbe is not httpGet /healthz`);
  if (bsh.readinessProbe?.httpGet?.path !== '/readyz') errs.push(`${w}: readinessProbe is not httpGet /readyz`);
  const args = bsh.args ?? [];
  const opt = (name) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };
  if (opt('--listen') !== `0.0.0.0:${PORT}`) errs.push(`${w}: --listen is not 0.0.0.0:${PORT}`);
  const tokenFile = opt('--token-file');
  if (!tokenFile) errs.push(`${w}: --token-file is required for a non-loopback --listen`);
  if (opt('--instance') !== '$(POD_NAME)') errs.push(`${w}: --instance is not $(POD_NAME)`);
  const podName = (bsh.env ?? []).find((e) => e.name === 'POD_NAME');
  if (podName?.valueFrom?.fieldRef?.fieldPath !== 'metadata.name') errs.push(`${w}: POD_NAME does not come from metadata.name`);
  if (opt('-C') !== '/work') errs.push(`${w}: -C is not /work`);
  const drainMs = Number(opt('--drain-timeout') ?? DRAIN_MS_DEFAULT);
  const grace = s.terminationGracePeriodSeconds ?? 30;
  if (!(grace * 1000 > drainMs)) errs.push(`${at}: terminationGracePeriodSeconds ${grace} s does not outlast the drain (${drainMs} ms)`);
  // Writable places on a read-only root: /work and /tmp are emptyDirs.
  const vols = Object.fromEntries((s.volumes ?? []).map((v) => [v.name, v]));
  for (const dir of ['/work', '/tmp']) {
    const m = (bsh.volumeMounts ?? []).find((x) => x.mountPath === dir);
    if (!m || !vols[m.volumeName ?? m.name]?.emptyDir || m.readOnly) errs.push(`${w}: ${dir} is not a writable emptyDir`);
  }
  // The token file's directory is a volume, not the image.
  if (tokenFile && !(bsh.volumeMounts ?? []).some((m) => tokenFile.startsWith(m.mountPath + '/'))) errs.push(`${w}: ${tokenFile} is on no volume`);
  return errs;
}

function ruleIsGatewayOnly(rule) {
  const froms = rule.from ?? [];
  const ports = rule.ports ?? [];
  const errs = [];
  if (froms.length === 0) errs.push('an ingress rule allows every source');
  for (const f of froms) {
    if (f.ipBlock || f.namespaceSelector || !matches(GATEWAY, f.podSelector?.matchLabels) || f.podSelector?.matchExpressions)
      errs.push(`an ingress source is not the gateway selector: ${JSON.stringify(f)}`);
  }
  if (ports.length === 0 || ports.some((p) => p.port !== PORT || (p.protocol ?? 'TCP') !== 'TCP' || p.endPort))
    errs.push(`ingress ports are not exactly TCP ${PORT}`);
  return errs;
}

function networkPolicyCheck(np) {
  const s = np.spec ?? {};
  const errs = [];
  const types = [...(s.policyTypes ?? [])].sort();
  if (JSON.stringify(types) !== '["Egress","Ingress"]') errs.push('/spec/policyTypes is not [Ingress, Egress]');
  if ((s.egress ?? []).length) errs.push('/spec/egress allows traffic');
  if (!(s.ingress ?? []).length) errs.push('/spec/ingress is empty: the gateway cannot connect');
  for (const r of s.ingress ?? []) errs.push(...ruleIsGatewayOnly(r).map((e) => `/spec/ingress: ${e}`));
  return errs;
}

function templatePolicy(obj) {
  if (obj.kind !== 'SandboxTemplate') return [];
  const s = obj.spec ?? {};
  if (s.networkPolicyManagement === 'Unmanaged') return [];
  // Managed: the controller's policy applies to these pods; without rules
  // of ours its default allows egress to the internet.
  if (!s.networkPolicy) return ['/spec/networkPolicy: missing, so the controller default (public egress) applies'];
  return networkPolicyCheck({ spec: { policyTypes: ['Ingress', 'Egress'], ...s.networkPolicy } }).map((e) => e.replace('/spec/', '/spec/networkPolicy/'));
}

// --- driver -------------------------------------------------------------

function checkObject(obj) {
  const errs = schemaCheck(obj);
  errs.push(...podPolicy(obj), ...templatePolicy(obj));
  if (obj.kind === 'NetworkPolicy') errs.push(...networkPolicyCheck(obj));
  return errs;
}

function yamlFiles(dir) {
  return readdirSync(dir).sort().flatMap((n) => {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) return yamlFiles(p);
    return /\.ya?ml$/.test(n) ? [p] : [];
  });
}

function selfTest() {
  const good = parseAllDocuments(readFileSync('deploy/kubernetes/deployment.yaml', 'utf8'))[0].toJS();
  const cases = [
    ['a bad field type (replicas: "one")', (d) => { d.spec.replicas = 'one'; }, /replicas must be integer/],
    ['a missing securityContext', (d) => { delete d.spec.template.spec.containers[0].securityContext; }, /no securityContext/],
    ['a misspelt field (readOnlyRootFilesytem)', (d) => {
      const sc = d.spec.template.spec.containers[0].securityContext;
      delete sc.readOnlyRootFilesystem; sc.readOnlyRootFilesytem = true;
    }, /readOnlyRootFilesytem is not a field/],
    ['a grace period shorter than the drain', (d) => { d.spec.template.spec.terminationGracePeriodSeconds = 5; }, /does not outlast the drain/],
    ['a NetworkPolicy that allows egress', null, /egress allows traffic/],
    ['a SandboxClaim with an unknown field', null, /templateRef is not a field/],
  ];
  const fails = [];
  for (const [name, edit, expect] of cases) {
    let obj;
    if (name.startsWith('a NetworkPolicy')) {
      obj = parseAllDocuments(readFileSync('deploy/kubernetes/networkpolicy.yaml', 'utf8'))[0].toJS();
      obj.spec.egress = [{}];
    } else if (name.startsWith('a SandboxClaim')) {
      obj = { apiVersion: 'extensions.agents.x-k8s.io/v1alpha1', kind: 'SandboxClaim', metadata: { name: 'x' }, spec: { sandboxTemplateRef: { name: 'bsh' }, templateRef: { name: 'bsh' } } };
    } else {
      obj = structuredClone(good);
      edit(obj);
    }
    const errs = checkObject(obj);
    const ok = errs.some((e) => expect.test(e));
    console.log(`${ok ? 'ok  ' : 'FAIL'} self-test: ${name} is rejected${ok ? '' : ` (got: ${errs.join('; ') || 'no error'})`}`);
    if (!ok) fails.push(name);
  }
  if (checkObject(good).length) fails.push('the good Deployment is not accepted');
  return fails.length;
}

let failed = selfTest();
const bshPods = [];
const policies = [];
for (const file of yamlFiles('deploy')) {
  const rel = relative('.', file);
  const errs = [];
  let kinds = [];
  try {
    const docs = parseAllDocuments(readFileSync(file, 'utf8'));
    for (const d of docs) {
      if (d.errors.length) { errs.push(...d.errors.map((e) => e.message)); continue; }
      const obj = d.toJS();
      if (obj == null) continue;
      kinds.push(obj.kind);
      if (obj.kind === 'Kustomization') {
        const dir = file.replace(/[^/]+$/, '');
        for (const r of obj.resources ?? []) {
          try { statSync(join(dir, r)); } catch { errs.push(`resource ${r} does not exist`); }
        }
        continue;
      }
      errs.push(...checkObject(obj).map((e) => `${obj.kind}/${obj.metadata?.name}: ${e}`));
      const pod = podOf(obj);
      if (pod) bshPods.push({ file: rel, ns: obj.metadata?.namespace, labels: pod.labels });
      if (obj.kind === 'NetworkPolicy') policies.push({ file: rel, ns: obj.metadata?.namespace, np: obj });
    }
  } catch (e) {
    errs.push(e.message);
  }
  console.log(`${errs.length ? 'FAIL' : 'ok  '} ${rel} (${kinds.join(', ') || 'no objects'})`);
  for (const e of errs) console.log(`       ${e}`);
  if (errs.length) failed++;
}
// Every bsh pod is selected by a NetworkPolicy of its namespace.
for (const p of bshPods) {
  const dir = (f) => f.replace(/[^/]+$/, '');
  const selects = (x) => x.ns === p.ns && matches(x.np.spec?.podSelector?.matchLabels ?? {}, p.labels);
  const np = policies.find((x) => selects(x) && dir(x.file) === dir(p.file)) ?? policies.find(selects);
  const ok = Boolean(np);
  console.log(`${ok ? 'ok  ' : 'FAIL'} pods of ${p.file} are confined by ${ok ? np.file : 'no NetworkPolicy'}`);
  if (!ok) failed++;
}
if (failed) {
  console.log(`${failed} check(s) failed`);
  process.exit(1);
}
console.log('all checks passed');
