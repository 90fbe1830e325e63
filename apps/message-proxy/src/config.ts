import { availableParallelism } from 'node:os';
import { PROXY_BULK_PREFIX } from '@bastion/contracts';
import { MATCH_LENGTH_CAP } from '@bastion/guardrails';
import { PlatformConfig } from '@bastion/platform';
import { IsIn, IsInt, IsString, Max, Min } from 'class-validator';

export class ProxyConfig extends PlatformConfig {
  /** Hosts, host:port pairs, IPs or CIDRs the proxy may reach although private (e.g. a local model). */
  @IsString()
  OUTBOUND_ALLOWLIST = '';

  /**
   * Which requests this replica answers: `all`; `standard`, all but the bulk lane's; or `bulk`,
   * only the bulk lane's (the gateway sends a request there when its text is large, see its
   * PROXY_BULK_FROM_CHARS). Replicas for each lane keep a megabyte prompt's parsing, scanning and
   * recording off the event loop that answers short requests; with no bulk replica running, the
   * gateway's bulk requests go to the standard ones.
   */
  @IsIn(['all', 'standard', 'bulk'])
  PROXY_LANE: 'all' | 'standard' | 'bulk' = 'all';

  /**
   * Nice value (Linux, 0 to 19) of every thread of this replica: on a machine it shares with
   * standard replicas and the gateway, a bulk-lane replica's work yields the CPU to the short
   * requests'. -1 (the default): 15 on the bulk lane, 0 on the others. (With both cores kept busy
   * by threads at nice 10, a thread that wakes waited 0.5-1.7 ms at p99 to run; at nice 15 or 19,
   * 0.2-0.3 ms, as with nothing else running: `node bench/proxy/wake-latency.js`. 15 rather than
   * 19 leaves room below it for the replica's scan workers, SCAN_WORKER_NICE.)
   */
  @IsInt()
  @Min(-1)
  @Max(19)
  PROXY_NICE = -1;

  /**
   * Linux scheduling class of every thread of this replica, set with util-linux's `chrt` at start:
   * `normal` (the default), or `idle` (SCHED_IDLE), for a bulk replica on a machine it shares with
   * the standard ones. An idle thread gives way at once to any other that wakes (one at nice 15
   * nearly so, bench/proxy/wake-latency.js); but it gets almost no CPU while the others keep the CPUs
   * busy, so its large requests may then miss their deadlines (504, or a 503 when the record cannot
   * be made durable in time). Nice values, SCAN_WORKER_NICE included, mean nothing in that class.
   * Where chrt is missing or refused the replica says so and runs at its nice value.
   */
  @IsIn(['idle', 'normal'])
  PROXY_SCHED: 'idle' | 'normal' = 'normal';

  /** How long a model may take to answer (ms); streams get this much per stream. */
  @IsInt()
  @Min(1000)
  UPSTREAM_TIMEOUT_MS = 120_000;

  /** Cached providers and projects are dropped after this long even without a change event (ms). */
  @IsInt()
  @Min(1000)
  CACHE_TTL_MS = 60_000;

  /**
   * The most characters of a streamed answer held back while the scanners wait to see what follows.
   * The proxy holds back only from where a match could still be in progress; this caps it for
   * patterns whose matches have no bound (a longer match may leave in part).
   */
  @IsInt()
  @Min(0)
  @Max(100_000)
  STREAM_HOLDBACK_CHARS = MATCH_LENGTH_CAP;

  /** CPU time all scans of one request may take together (ms); past it the scan fails closed. */
  @IsInt()
  @Min(10)
  @Max(60_000)
  SCAN_BUDGET_MS = 1000;

  /**
   * Worker threads that run request scans and whole-answer scans off the event loop, fairly
   * across tenants (0: scan on the event loop). Default: one per core, at least 2.
   */
  @IsInt()
  @Min(0)
  @Max(64)
  SCAN_WORKERS = Math.max(2, availableParallelism());

  /** Scan workers one tenant may hold at once (default: all but one, so one is always left for others). */
  @IsInt()
  @Min(1)
  @Max(64)
  SCAN_WORKERS_PER_TENANT = Math.max(1, Math.max(2, availableParallelism()) - 1);

  /** Scans a tenant with costly scans may have waiting for a worker; past it a request is refused (429) rather than queued. */
  @IsInt()
  @Min(1)
  @Max(10_000)
  SCAN_QUEUE_PER_TENANT = 16;

  /**
   * Nice value added to the process's for every scan worker's thread but the first (Linux; at most
   * 19): their scanning yields the CPU to answering requests. Next to busy threads at nice 0 one at
   * nice 15 gets about 3% of a core (10% at nice 10, 1.5% at 19) and barely delays them as they wake
   * (bench/proxy/wake-latency.js); a costly tenant's scans, whose budget is wall-clock time, may then
   * run out of it (and fail closed) on a machine kept busy. A tenant whose scan cost over 50 ms of CPU in the last minute scans only
   * on those; the first worker, at the process's priority, is kept for tenants whose scans are quick.
   */
  @IsInt()
  @Min(0)
  @Max(19)
  SCAN_WORKER_NICE = 15;

  /**
   * A scan of a text of at most this many characters runs on the proxy's event loop rather than a
   * scan worker (0: never), when its tenant's scans have been cheap lately and its scanners compile
   * quickly: handing a short text to a worker and back costs more than the scan. Such a scan may
   * take 5 ms; one that would take longer goes to the workers, with its tenant's next ones.
   */
  @IsInt()
  @Min(0)
  SCAN_INLINE_MAX_CHARS = 4096;

  /**
   * A tenant's share of the scan workers' CPU on this replica: its scans may cost on average this
   * many ms of CPU per second (0: no cap), saving up at most SCAN_CPU_BURST_MS. A tenant over it
   * waits (its requests queue) until it is back under, so one tenant's costly scanners cannot take
   * the CPU that other tenants' requests need. A scan that would wait over 3 s is refused (429 with
   * Retry-After) instead.
   */
  @IsInt()
  @Min(0)
  SCAN_CPU_MS_PER_SECOND_PER_TENANT = 500;

  /**
   * The share, in the same terms, of a tenant while its scans are costly (one cost over 50 ms of CPU
   * in the last minute): what one tenant's worst allowed scanners may keep busy on a replica. At
   * half a core, another tenant's p99 rose 44-63% on a 2-core machine in `pnpm bench:proxy`'s
   * noisy-neighbour section; at a quarter, 9-14% in the runs after the gateway's early refusals
   * were held. Quick scans keep SCAN_CPU_MS_PER_SECOND_PER_TENANT: a tenant sending 1,700 guarded
   * requests a second used about a quarter of a core for them, and at that share its scans queued
   * for a worker (0.25 ms of CPU more per request).
   */
  @IsInt()
  @Min(0)
  SCAN_CPU_MS_PER_SECOND_PER_COSTLY_TENANT = 250;

  @IsInt()
  @Min(0)
  SCAN_CPU_BURST_MS = 2000;

  /**
   * How long an answer may wait for its prompt record to be acknowledged by JetStream (ms), through
   * a NATS blip; past it the answer is a 503. Below the gateway's RPC timeout.
   */
  @IsInt()
  @Min(100)
  @Max(60_000)
  RECORD_BUDGET_MS = 3000;

  /**
   * At most this many prompt records to one JetStream message: records finished while another
   * record's acknowledgement is awaited leave together (EventGroups). 1 sends every record alone, as
   * versions before groups did: for an upgrade while prompts replicas of such a version still run
   * (they would drop a group as malformed).
   */
  @IsInt()
  @Min(1)
  @Max(100)
  RECORD_GROUP_MAX = 100;

  /**
   * How a prompt record carries its scanner results on the bus: `tuples` (each one array of its
   * fields, ScannerResultTuple: half a guarded record's bytes) or `objects`, the form of releases
   * before 2026-12-02, whose prompt store refuses tuples. Upgrading a running deployment, keep
   * `objects` until every prompts replica runs this release or a later one.
   */
  @IsIn(['tuples', 'objects'])
  RECORD_SCANNER_RESULTS_FORM: 'tuples' | 'objects' = 'tuples';
}

export const PROXY_CONFIG = Symbol('PROXY_CONFIG');
export const PROXY_LOGGER = Symbol('PROXY_LOGGER');
export const OUTBOUND_CLIENT = Symbol('OUTBOUND_CLIENT');

/** The subjects a replica of `lane` answers. */
export function laneFilter(lane: ProxyConfig['PROXY_LANE']): (subject: string) => boolean {
  if (lane === 'bulk') return (subject) => subject.startsWith(PROXY_BULK_PREFIX);
  if (lane === 'standard') return (subject) => !subject.startsWith(PROXY_BULK_PREFIX);
  return () => true;
}

/** The nice value a replica runs at: PROXY_NICE, or by default 15 on the bulk lane and 0 on the others. */
export function laneNice(config: Pick<ProxyConfig, 'PROXY_LANE' | 'PROXY_NICE'>): number {
  if (config.PROXY_NICE >= 0) return config.PROXY_NICE;
  return config.PROXY_LANE === 'bulk' ? 15 : 0;
}
