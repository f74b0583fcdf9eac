// Numbers in the page: the exact value in a data-n attribute, a neutral form as text (digits
// grouped by a narrow space, as ISO 80000 writes them), and the page's script formats them for the
// reader's locale (docs/report.md#the-html-page). The machine formats never see any of this.
import { html, Markup } from './escape.js';

const NARROW_SPACE = '\u202F';

/** `1234567.5` → `1 234 567.5` with narrow spaces: readable in any locale without the script. */
export function neutral(value: number, decimals = 0): string {
  const fixed = value.toFixed(decimals);
  const [whole, fraction] = fixed.split('.');
  const sign = whole!.startsWith('-') ? '-' : '';
  const digits = sign ? whole!.slice(1) : whole!;
  const grouped = digits.length > 4 ? digits.replace(/\B(?=(\d{3})+$)/g, NARROW_SPACE) : digits;
  return `${sign}${grouped}${fraction === undefined ? '' : `.${fraction}`}`;
}

/** A number in HTML text, for the script to format: `<span data-n="1234">1 234</span>`. */
export function num(value: number, decimals = 0, tag: 'span' | 'tspan' = 'span'): Markup {
  // Only digits, signs and the tag name go in: nothing here comes from an input.
  const f = decimals === 0 ? '' : ` data-f="${decimals}"`;
  return new Markup(`<${tag} data-n="${value}"${f}>${neutral(value, decimals)}</${tag}>`);
}

/** A share as a percentage with one decimal: `<span data-n="12.5" data-f="1">12.5</span>%`. */
export function pct(count: number, of: number, tag: 'span' | 'tspan' = 'span'): Markup {
  const share = of === 0 ? 0 : Math.round((count / of) * 1000) / 10;
  return html`${num(share, 1, tag)}%`;
}

/**
 * A duration in milliseconds, in the largest unit that keeps it readable; with a `resolution` of
 * a second, never finer than whole seconds (0 is then "under 1 s": see timeToDelivery).
 */
export function duration(ms: number, resolution = 1): Markup {
  if (resolution >= 1000 && ms < 1000) return html`under 1 s`;
  if (resolution >= 1000 && ms < 60_000) return html`${num(Math.round(ms / 1000))} s`;
  if (ms < 1000) return html`${num(Math.round(ms))} ms`;
  if (ms < 60_000) return html`${num(Math.round(ms / 100) / 10, 1)} s`;
  if (ms < 3_600_000) return html`${num(Math.round(ms / 6000) / 10, 1)} min`;
  return html`${num(Math.round(ms / 360_000) / 10, 1)} h`;
}
