// Free names for a report set aside, beside it on this host: a rehearsal's, or a campaign's whose
// report a new run writes over.
import { extname } from 'node:path';
import { exists } from '../shared/files.js';

/** A free name for a rehearsal's report set aside: `<name>.rehearsal.<ext>`, `.rehearsal-2` … */
export function rehearsalReportName(path: string): Promise<string> {
  return asideName(path, 'rehearsal');
}

/**
 * A free name for a report set aside, with `tag` (a rehearsal's, or its campaign's ID) in it:
 * `<name>.<tag>.report.<ext>`, `<name>.<tag>-2.report.<ext>` …
 */
export async function asideName(path: string, tag: string): Promise<string> {
  const ext = extname(path);
  const stem = path.slice(0, path.length - ext.length).replace(/\.report$/, '');
  let moved = '';
  for (let n = 1; moved === '' || (await exists(moved)); n++) {
    moved = `${stem}.${tag}${n === 1 ? '' : `-${n}`}${ext === '' ? '' : `.report${ext}`}`;
  }
  return moved;
}
