// Small number and time formatters shared by the renderers.
import { groupDigits } from '../../shared/count.js';

export function formatCount(n: number): string {
  return groupDigits(n);
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const whole = Math.round(seconds);
  const minutes = Math.floor(whole / 60);
  const rest = whole - minutes * 60;
  return rest === 0 ? `${minutes} min` : `${minutes} min ${rest} s`;
}

/** A limit as it was likely given: `30 s`, `2 min`, `500 ms` (no tenths of a whole second). */
export function formatLimit(ms: number): string {
  return ms >= 1000 && ms < 60_000 ? `${Math.ceil(ms / 1000)} s` : formatDuration(ms);
}

export function formatRate(perSecond: number): string {
  return `${perSecond >= 100 ? groupDigits(Math.round(perSecond)) : perSecond.toFixed(1)} msg/s`;
}

export { formatMoney, plural } from '../../shared/count.js';

/** `512 bytes`, `1.2 MB`: a file's size for a person. */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${formatCount(bytes)} bytes`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
