// What a claim in the database needs of its store: the pool, the lease's length, this host's files.
import type { Kin, LocalFiles } from '../claim.js';
import type { Database } from './connect.js';

/** What the claim needs of its store. */
export interface ClaimPlace extends Kin {
  db: Database;
  leaseMs: number;
  /** This host's files of the campaign. */
  local(id: string): LocalFiles;
  /** How to see how a campaign stands, as refusals name it. */
  program: string;
}
