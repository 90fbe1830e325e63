import { createHash, randomUUID } from 'node:crypto';
import {
  DATASET_PART_BYTES,
  type ProjectRuntime,
  type ProjectView,
  ProjectSubjects,
  ScannerSubjects,
  type ScannerView,
} from '@bastion/contracts';
import { uniqueTenant, untypedRpc } from '@bastion/testing';
import { startProjectsService } from '../../../test/support/projects';
import { serviceUnderTest } from '../../../test/support/stack';

// Dataset runs of a few MB take seconds, far more on a busy machine; what is tested is not their speed.
jest.setTimeout(90_000);

/** The projects service on its own: real NATS requests in, real Postgres rows out. */
describe('projects service over NATS', () => {
  const svc = serviceUnderTest(() => startProjectsService(), { name: 'int-test', rpcTimeoutMs: 60_000 });

  const principal = (tenant: string, role = 'admin', sub = 'int-user') => ({ sub, tenant, roles: [role] });
  // Raw subjects and loose payloads on purpose: some cases send what a typed caller could not.
  const call = <T>(subject: string, data: unknown) => svc.rpc.call(untypedRpc<T>(subject), data, `int-${randomUUID()}`);
  const createScanner = (tenant: string, body: Record<string, unknown> = {}) =>
    call<{ id: string }>(ScannerSubjects.create, {
      principal: principal(tenant),
      body: { name: `s-${randomUUID()}`, config: { type: 'regex', pattern: 'secret' }, ...body },
    }).then((r) => r.id);
  const createProject = (tenant: string, name = `p-${randomUUID().slice(0, 8)}`) =>
    call<{ project: ProjectView }>(ProjectSubjects.create, { principal: principal(tenant), body: { name } }).then(
      (r) => r.project,
    );

  it('seeds the built-in scanners and packages once, however many replicas start', async () => {
    const second = await startProjectsService();
    await second.close();
    const { rows } = await svc.db.query(
      `SELECT kind, count(*)::int AS n FROM projects.scanners WHERE built_in GROUP BY kind ORDER BY kind`,
    );
    expect(rows).toEqual([
      { kind: 'scanner', n: 12 },
      { kind: 'package', n: 2 },
    ]);
    const tenant = uniqueTenant();
    const page = await call<{ scanners: ScannerView[] }>(ScannerSubjects.list, {
      principal: principal(tenant, 'viewer'),
      limit: 100,
    });
    expect(page.scanners.filter((s) => s.builtIn)).toHaveLength(12);
    expect(page.scanners.every((s) => s.published && s.versionMeta.name === 'v_1')).toBe(true);
  });

  it('numbers versions without gaps or duplicates when updates race', async () => {
    const tenant = uniqueTenant();
    const id = await createScanner(tenant);
    await Promise.all(
      [1, 2, 3, 4, 5].map((i) =>
        call(ScannerSubjects.update, {
          principal: principal(tenant),
          scannerId: id,
          body: { config: { type: 'regex', pattern: `secret${i}` } },
        }),
      ),
    );
    const { rows } = await svc.db.query(
      'SELECT number, name FROM projects.scanner_versions WHERE scanner_id = $1 ORDER BY number',
      [id],
    );
    expect(rows.map((r) => r.name)).toEqual(['v_1', 'v_2', 'v_3', 'v_4', 'v_5', 'v_6']);
    const { rows: scanner } = await svc.db.query(
      'SELECT version_count, latest_version_id FROM projects.scanners WHERE id = $1',
      [id],
    );
    expect(scanner[0].version_count).toBe(6);
    // None was pushed: the latest is still the first version.
    const { rows: v1 } = await svc.db.query(
      "SELECT id FROM projects.scanner_versions WHERE scanner_id = $1 AND name = 'v_1'",
      [id],
    );
    expect(scanner[0].latest_version_id).toBe(v1[0].id);
  });

  it('keeps every config change as an append-only revision, even when attaches race', async () => {
    const tenant = uniqueTenant();
    const project = await createProject(tenant);
    const scanners = await Promise.all([1, 2, 3, 4].map(() => createScanner(tenant)));
    await Promise.all(
      scanners.map((id) =>
        call(ProjectSubjects.attachGuardrail, {
          principal: principal(tenant),
          id: project.id,
          list: 'scanners',
          entry: { id },
        }),
      ),
    );
    const { rows } = await svc.db.query(
      'SELECT revision, valid_from FROM projects.project_config_revisions WHERE project_id = $1 ORDER BY revision',
      [project.id],
    );
    expect(rows.map((r) => r.revision)).toEqual([1, 2, 3, 4, 5]);
    const times = rows.map((r) => (r.valid_from as Date).getTime());
    expect(times).toEqual([...times].sort((a, b) => a - b));
    const got = await call<{ project: ProjectView }>(ProjectSubjects.get, {
      principal: principal(tenant, 'viewer'),
      project: project.id,
    });
    expect(got.project.scannerCount).toBe(4);
    expect(got.project.config.revision).toBe(5);
  });

  it("keeps every query inside the caller's tenant", async () => {
    const owner = uniqueTenant();
    const id = await createScanner(owner);
    const project = await createProject(owner);
    const other = principal(uniqueTenant());
    for (const [subject, data] of [
      [ScannerSubjects.get, { scannerId: id }],
      [ScannerSubjects.update, { scannerId: id, body: { name: 'stolen' } }],
      [ScannerSubjects.delete, { scannerId: id }],
      [ScannerSubjects.listVersions, { scannerId: id }],
      [ScannerSubjects.evaluate, { scannerId: id, versionRef: 'v_1', data: Buffer.from('a,1').toString('base64') }],
      [ProjectSubjects.get, { project: project.id }],
      [ProjectSubjects.get, { project: project.name }],
      [ProjectSubjects.update, { id: project.id, body: { deploymentStatus: 'live' } }],
      [ProjectSubjects.delete, { id: project.id }],
      [ProjectSubjects.attachProvider, { id: project.id, entry: { id: randomUUID() } }],
    ] as const) {
      await expect(call(subject, { principal: other, ...data })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    }
    // Nor may another tenant attach this tenant's scanner to its own project.
    const theirs = await createProject(other.tenant);
    await expect(
      call(ProjectSubjects.attachGuardrail, { principal: other, id: theirs.id, list: 'scanners', entry: { id } }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const { rows } = await svc.db.query('SELECT name FROM projects.scanners WHERE id = $1', [id]);
    expect(rows[0].name).not.toBe('stolen');
  });

  it('validates payloads on receipt, whoever sent them', async () => {
    // A malformed principal is refused by the access guard before the payload is validated.
    await expect(
      call(ScannerSubjects.create, { principal: { tenant: 'x', roles: ['root'] }, body: { name: 'a', config: {} } }),
    ).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    await expect(
      call(ProjectSubjects.attachGuardrail, {
        principal: principal('x'),
        id: randomUUID(),
        list: 'providers',
        entry: { id: randomUUID() },
      }),
    ).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining('list'),
    });
  });

  it('evaluates a dataset staged in parts, checks it whole, and drops the parts', async () => {
    const tenant = uniqueTenant();
    const id = await createScanner(tenant);
    // 3 parts: "secret" rows labelled true, others false, and one false positive per 1000 rows.
    const lines = ['prompt,label'];
    const expected = { tp: 0, fp: 0, tn: 0 };
    for (let i = 0, size = 0; size < 2.2 * DATASET_PART_BYTES; i++, size += lines[lines.length - 1].length + 1) {
      if (i % 1000 === 999) {
        lines.push(`"not a secret, really",false`);
        expected.fp++;
      } else if (i % 2 === 0) {
        lines.push(`my secret number ${i},true`);
        expected.tp++;
      } else {
        lines.push(`hello ${i},0`);
        expected.tn++;
      }
    }
    const csv = Buffer.from(lines.join('\n'));
    const parts = [0, 1, 2].map((i) => csv.subarray(i * DATASET_PART_BYTES, (i + 1) * DATASET_PART_BYTES));
    expect(parts[2].length).toBeGreaterThan(0);
    const uploadId = randomUUID();
    const p = principal(tenant, 'member');
    await Promise.all(
      parts.map((data, part) =>
        call(ScannerSubjects.stageDataset, { principal: p, uploadId, part, data: data.toString('base64') }),
      ),
    );
    const sha256 = createHash('sha256').update(csv).digest('hex');

    // Another tenant cannot evaluate with it: the scanner is not theirs.
    await expect(
      call(ScannerSubjects.evaluate, {
        principal: principal(uniqueTenant(), 'member'),
        scannerId: id,
        versionRef: 'v_1',
        upload: { id: uploadId, parts: 3, bytes: csv.length, sha256 },
      }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });

    const { datasetRun } = await call<{
      datasetRun: Record<string, number> & { confusionMatrix: Record<string, number> };
    }>(ScannerSubjects.evaluate, {
      principal: p,
      scannerId: id,
      versionRef: 'v_1',
      upload: { id: uploadId, parts: 3, bytes: csv.length, sha256 },
    });
    expect(datasetRun.confusionMatrix).toEqual({
      truePositive: expected.tp,
      falsePositive: expected.fp,
      trueNegative: expected.tn,
      falseNegative: 0,
    });
    expect(datasetRun.f1Score).toBeCloseTo((2 * expected.tp) / (2 * expected.tp + expected.fp), 12);
    const { rows } = await svc.db.query(
      'SELECT count(*)::int AS n FROM projects.dataset_upload_parts WHERE upload_id = $1',
      [uploadId],
    );
    expect(rows[0].n).toBe(0);

    // The parts are gone: the same evaluation again says the upload is incomplete.
    await expect(
      call(ScannerSubjects.evaluate, {
        principal: p,
        scannerId: id,
        versionRef: 'v_1',
        upload: { id: uploadId, parts: 3, bytes: csv.length, sha256 },
      }),
    ).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining('incomplete (0 of 3 parts)'),
    });
  });

  it('answers the runtime config: pinned versions, unpinned ones following the latest published, built-in packages', async () => {
    const tenant = uniqueTenant();
    const p = principal(tenant);
    const id = await createScanner(tenant, { published: true });
    // v_2 published and pushed, v_3 pushed but not published.
    await call(ScannerSubjects.update, {
      principal: p,
      scannerId: id,
      body: { config: { type: 'regex', pattern: 'secret2' }, version: { push: true, published: true } },
    });
    const pinnedTo = await createScanner(tenant, { published: true, direction: 'response' });
    await call(ScannerSubjects.update, {
      principal: p,
      scannerId: id,
      body: { config: { type: 'regex', pattern: 'secret3' }, version: { push: true } },
    });
    const project = await createProject(tenant);
    const packages = await call<{ packages: { id: string; type: string }[] }>(ScannerSubjects.listPackages, {
      principal: p,
    });
    const pii = packages.packages.find((x) => x.type === 'pii')!;
    await call(ProjectSubjects.update, {
      principal: p,
      id: project.id,
      body: {
        deploymentStatus: 'live',
        config: {
          scanners: [{ id }, { id: pinnedTo, version: 'v_1', mode: 'audit' }],
          packages: [{ id: pii.id, mode: 'redact' }],
        },
      },
    });
    const runtime = await call<ProjectRuntime>(ProjectSubjects.runtime, { tenant, project: project.name });
    expect(runtime.project).toEqual({ id: project.id, name: project.name, deploymentStatus: 'live', enforcing: true });
    expect(runtime.revision).toBe(2);
    expect(runtime.scanners.map((s) => [s.version, s.resolvedVersion.name, s.resolvedVersion.config])).toEqual([
      ['latest', 'v_2', { type: 'regex', pattern: 'secret2' }],
      ['v_1', 'v_1', { type: 'regex', pattern: 'secret' }],
    ]);
    expect(runtime.scanners[1]).toMatchObject({
      mode: 'audit',
      direction: 'response',
      kind: 'scanner',
      builtIn: false,
    });
    expect(runtime.packages).toEqual([
      expect.objectContaining({
        id: pii.id,
        kind: 'package',
        builtIn: true,
        mode: 'redact',
        resolvedVersion: expect.objectContaining({ config: { type: 'pii' } }),
      }),
    ]);
  });

  it('makes each tenant one default project on first use, even when asked at once', async () => {
    const tenant = uniqueTenant();
    const answers = await Promise.all(
      [1, 2, 3, 4, 5].map(() => call<ProjectRuntime>(ProjectSubjects.runtime, { tenant, project: 'default' })),
    );
    expect(new Set(answers.map((a) => a.project.id)).size).toBe(1);
    expect(answers[0].project).toMatchObject({ name: 'default', deploymentStatus: 'draft', enforcing: false });
    const { rows } = await svc.db.query(
      "SELECT count(*)::int AS n FROM projects.projects WHERE tenant = $1 AND name = 'default'",
      [tenant],
    );
    expect(rows[0].n).toBe(1);
  });

  it('refuses to delete a scanner a project uses, naming the project', async () => {
    const tenant = uniqueTenant();
    const id = await createScanner(tenant);
    const project = await createProject(tenant, 'uses-it');
    await call(ProjectSubjects.attachGuardrail, {
      principal: principal(tenant),
      id: project.id,
      list: 'scanners',
      entry: { id },
    });
    await expect(call(ScannerSubjects.delete, { principal: principal(tenant), scannerId: id })).rejects.toMatchObject({
      code: 'FAILED_PRECONDITION',
      message: expect.stringContaining('uses-it'),
    });
    await call(ProjectSubjects.detach, { principal: principal(tenant), id: project.id, list: 'scanners', entryId: id });
    await call(ScannerSubjects.delete, { principal: principal(tenant), scannerId: id });
    const { rows } = await svc.db.query(
      'SELECT count(*)::int AS n FROM projects.scanner_versions WHERE scanner_id = $1',
      [id],
    );
    expect(rows[0].n).toBe(0);
  });
});
