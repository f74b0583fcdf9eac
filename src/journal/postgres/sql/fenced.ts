// A run's hold on a campaign as the statements check it: the campaign, and the fencing number the
// run took it with. Every write of a holder names both in its WHERE.
export interface Fenced {
  readonly id: string;
  readonly fence: string;
}

/** The SQL of a campaign's row that a live run holds (its lease not run out, by the server's clock). */
export const LIVE = '(holder IS NOT NULL AND lease_until > now())';
