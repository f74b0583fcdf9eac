// ValidationPeriod: an absolute yyyymmddhhmmss, or a duration ("2h", "30m") turned into one.
import { parseDuration } from '../shared/duration.js';
import { systemClock } from '../shared/clock.js';
import { formatTimestamp, parseCompactTimestamp } from '../shared/timestamp.js';

export type ValidityResult = { ok: true; value: string } | { ok: false; reason: string };

/** The format alone (a real timestamp, or a duration), as the settings schema checks it. */
export function checkValidityFormat(raw: string): string | undefined {
  const result = normalizeValidity(raw, new Date(systemClock.now()));
  return result.ok ? undefined : result.reason;
}

/** Durations are made absolute against `now` (UTC) because the relative format is not published. */
export function normalizeValidity(raw: string, now: Date): ValidityResult {
  const text = raw.trim();
  if (/^\d{14}$/.test(text)) {
    return parseCompactTimestamp(text) !== undefined
      ? { ok: true, value: text }
      : { ok: false, reason: `${text} is not a real date and time (yyyymmddhhmmss)` };
  }
  if (/^\d+$/.test(text)) {
    return { ok: false, reason: 'must be yyyymmddhhmmss (14 digits) or a duration such as 2h' };
  }
  const ms = parseDuration(text);
  if (ms === undefined || ms <= 0) {
    return { ok: false, reason: 'must be yyyymmddhhmmss or a duration such as 30m, 2h or 1d' };
  }
  return { ok: true, value: formatTimestamp(new Date(now.getTime() + ms)) };
}
