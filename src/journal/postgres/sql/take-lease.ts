// Takes a campaign for a run: a new fencing number, its holder and lease, only while no other
// run's lease is live. The new number, or undefined when another run holds it.
import type { Queries } from '../connect.js';
import { LIVE } from './fenced.js';

export async function takeLease(
  tx: Queries,
  id: string,
  who: { holder: string; host: string },
  seconds: number,
): Promise<string | undefined> {
  const taken = await tx.query<{ fence: string }>(
    `UPDATE sms_send.campaigns
        SET fence = fence + 1, holder = $2, host = $3,
            lease_until = now() + make_interval(secs => $4), updated_at = now()
      WHERE id = $1 AND NOT ${LIVE}
      RETURNING fence`,
    [id, who.holder, who.host, seconds],
  );
  return taken.rows[0]?.fence;
}
