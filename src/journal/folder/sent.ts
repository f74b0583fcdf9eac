// Whom a campaign of the state directory may have sent to, read from its journal files.
import { join } from 'node:path';
import { linesAt, listIfExists, openIfExists } from '../../shared/files.js';
import { SentRecipients, type SentTo } from '../sent.js';
import { ARCHIVED_JOURNAL } from './journal.js';

/** Whom the campaign in a state folder may have sent to: its journals, set-aside ones first. */
export async function sentFromFolder(dir: string): Promise<SentTo> {
  const names = (await listIfExists(dir)).filter(
    (name) => name === 'journal.ndjson' || ARCHIVED_JOURNAL.test(name),
  );
  // Set aside (`journal-<time>.ndjson`) in the order they were, the current journal last.
  names.sort((p, q) => (p === 'journal.ndjson' ? 1 : q === 'journal.ndjson' ? -1 : p < q ? -1 : 1));
  const sent = new SentRecipients();
  for (const name of names) {
    const handle = await openIfExists(join(dir, name));
    if (!handle) continue;
    try {
      for await (const lines of linesAt(handle)) for (const line of lines) sent.line(line.text);
    } finally {
      await handle.close();
    }
  }
  return sent.finish();
}
