// Small number and time formatters shared by the renderers.
import { groupDigits } from '../../shared/count.js';

export function formatCount(n: number): string {
  return groupDigits(n);
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes} min ${Math.round(seconds - minutes * 60)} s`;
}

export function formatRate(perSecond: number): string {
  return `${perSecond >= 100 ? groupDigits(Math.round(perSecond)) : perSecond.toFixed(1)} msg/s`;
}

export { formatMoney, plural } from '../../shared/count.js';

/** A word as a POSIX shell reads it back: bare when safe, else single-quoted. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}
