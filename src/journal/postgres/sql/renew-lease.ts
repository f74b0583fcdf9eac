// Renews a run's lease on its campaign, while its fencing number is the campaign's: false when
// another run took the campaign over.
import type { Queries } from '../connect.js';
import type { Fenced } from './fenced.js';

export async function renewLease(db: Queries, lease: Fenced, seconds: number): Promise<boolean> {
  const result = await db.query({
    // Named: the server plans it once per connection.
    name: 'sms-send-lease-renew',
    text: `UPDATE sms_send.campaigns SET lease_until = now() + make_interval(secs => $3)
            WHERE id = $1 AND fence = $2::bigint`,
    values: [lease.id, lease.fence, seconds],
  });
  return result.rowCount !== 0;
}
