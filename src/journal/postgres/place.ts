// What a claim in the database needs of its store: the pool, the lease's length, this host's cache.
import type { HostCache } from '../cache.js';
import type { Kin } from '../claim-rules.js';
import type { Database } from './connect.js';

export interface ClaimPlace extends Kin {
  db: Database;
  leaseMs: number;
  cache: HostCache;
}
