/** What global-setup hands the jest workers: entry i belongs to JEST_WORKER_ID i + 1. */
export interface WorkerInfra {
  databases: string[];
  nats: string[];
  /** Set when every worker shares one NATS: a directory whose creation is the right to use it. */
  natsLock?: string;
}
