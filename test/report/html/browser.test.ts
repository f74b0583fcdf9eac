// The campaign's page in a real browser (Debian's chromium, or the one the npm package ships, driven
// by playwright-core): its totals are `report --json`'s, it makes no request, and hostile texts
// stay text. One launch for the file.
/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runReport } from '../../../src/cli/commands/report.js';
import { launchBrowser } from '../../helpers/browser.js';
import { SERIES_PLOT } from '../../../src/report/html/svg.js';
import { HOSTILE, writeFixture } from './fixture.js';

let dir: string;
let context: BrowserContext;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sms-send-page-'));
  context = await launchBrowser(join(dir, 'profile'));
}, 60_000);

afterAll(async () => {
  await context?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** `report CAMPAIGN --json --html FILE` in-process: the JSON document it printed. */
async function reportWithPage(what: string, page: string): Promise<{ report: ReportJson }> {
  let out = '';
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    out += String(chunk);
    return true;
  });
  try {
    expect(await runReport(what, { json: true, html: page })).toBe(0);
  } finally {
    write.mockRestore();
  }
  return JSON.parse(out) as { report: ReportJson };
}

interface ReportJson {
  total: number;
  suppressed: number;
  delivered: number;
  byOutcome: Record<string, number>;
  byStatusCode: Record<string, { count: number; description: string }>;
}

/** Opens the page, noting every request that is not the file itself and every script of an input. */
async function open(file: string): Promise<{ page: Page; requests: string[]; dialogs: string[] }> {
  const page = await context.newPage();
  const requests: string[] = [];
  const dialogs: string[] = [];
  page.on('request', (request) => {
    if (!/^(file|data|about):/.test(request.url())) requests.push(request.url());
  });
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
  return { page, requests, dialogs };
}

/** A count as the page shows it, whatever the locale's grouping: its digits. */
async function shown(page: Page, selector: string): Promise<number> {
  const text = (await page.locator(selector).textContent()) ?? '';
  return Number(text.replace(/\D/g, ''));
}

describe('the campaign page in chromium', () => {
  it("shows report --json's totals, makes no request, and is saved as a screenshot", async () => {
    const fixture = await writeFixture(dir, process.env.SMS_SEND_STATE_DIR!, false);
    const file = join(dir, 'campaign.html');
    const { report } = await reportWithPage(fixture.id, file);
    expect(report.total).toBe(fixture.rows);
    const { page, requests } = await open(file);
    for (const [outcome, count] of Object.entries(report.byOutcome)) {
      expect(await shown(page, `[data-count="${outcome}"]`), outcome).toBe(count);
    }
    expect(await shown(page, '[data-count="total"]')).toBe(report.total);
    expect(await shown(page, '[data-count="suppressed"]')).toBe(report.suppressed);
    expect(await shown(page, '[data-funnel="delivered"]')).toBe(report.delivered);
    for (const [code, { count }] of Object.entries(report.byStatusCode)) {
      if (code !== '0') expect(await shown(page, `[data-code="${code}"]`), code).toBe(count);
    }
    // The page's script ran (its policy allows it by hash): times are the reader's, not UTC.
    const made = await page.locator('header time').textContent();
    expect(made).not.toMatch(/UTC$/);
    expect(made).toMatch(/\d/);
    // Each time chart twice: at the page's width, and at a phone's (shown on narrow screens).
    expect(await page.locator('#sending svg.chart:not(.narrow)').count()).toBe(2);
    expect(await page.locator('#sending svg.chart.narrow').count()).toBe(2);
    expect(await page.locator('#delivery-times-chart-t').count()).toBe(1);
    expect(requests).toEqual([]);
    const shot = join(dir, 'campaign.png');
    await page.screenshot({ path: shot, fullPage: true });
    expect((await stat(shot)).size).toBeGreaterThan(10_000);
    await page.close();
  });

  it('draws every mark of the time charts inside its plot, and every label whole', async () => {
    const fixture = await writeFixture(dir, process.env.SMS_SEND_STATE_DIR!, false);
    const file = join(dir, 'drawn.html');
    await reportWithPage(fixture.id, file);
    const { page } = await open(file);
    for (const id of ['rate-chart', 'latency-chart']) {
      const found = await page.evaluate(
        ({ id, plot }) => {
          const svg = document.getElementById(`${id}-t`)!.closest('svg')!;
          const box = svg.getBoundingClientRect();
          const scale = box.width / svg.viewBox.baseVal.width;
          const area = {
            left: box.left + plot.left * scale,
            right: box.left + plot.right * scale,
            top: box.top + plot.top * scale,
            bottom: box.top + plot.bottom * scale,
          };
          const outside: string[] = [];
          // Half a pixel for anti-aliasing; a dot's radius may reach past the plot's edge.
          const slack = 0.5 + 3 * scale;
          const marks = svg.querySelectorAll(
            'rect.bar, circle.dot, path.line, g.pause rect, rect.tick',
          );
          for (const mark of marks) {
            const r = mark.getBoundingClientRect();
            if (
              r.left < area.left - slack ||
              r.right > area.right + slack ||
              r.top < area.top - slack ||
              r.bottom > area.bottom + slack
            )
              outside.push(
                `${mark.outerHTML.slice(0, 80)} at ${r.left},${r.top},${r.right},${r.bottom}`,
              );
          }
          // Labels: whole inside the chart, and none over another.
          const labels = [...svg.querySelectorAll('text')].map((t) => ({
            text: t.textContent,
            r: t.getBoundingClientRect(),
          }));
          for (const { text, r } of labels) {
            if (r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5)
              outside.push(`label ${text} cut off`);
          }
          for (let i = 0; i < labels.length; i++)
            for (let j = i + 1; j < labels.length; j++) {
              const [a, b] = [labels[i]!.r, labels[j]!.r];
              if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom)
                outside.push(`labels ${labels[i]!.text} and ${labels[j]!.text} overlap`);
            }
          return { marks: marks.length, outside, visible: svg.previousElementSibling?.textContent };
        },
        { id, plot: SERIES_PLOT },
      );
      expect(found.outside, id).toEqual([]);
      expect(found.marks, id).toBeGreaterThan(2);
      expect(found.visible, id).toMatch(/ per 5 seconds$/);
    }
    // Each bar the value its row in the figures holds.
    const pairs = await page.evaluate(() =>
      [...document.querySelectorAll('#rate-chart-t ~ rect.bar')].map((bar) => [
        bar.getAttribute('data-v'),
        document
          .querySelector(
            `#sending-figures tr[data-at="${bar.getAttribute('data-at')}"] [data-answered]`,
          )
          ?.textContent?.replace(/\D/g, ''),
      ]),
    );
    expect(pairs.length).toBe(2);
    for (const [value, row] of pairs) expect(row).toBe(value);
    await page.close();
  });

  it('holds every hostile text as text: no script of theirs runs, no attribute breaks out', async () => {
    const fixture = await writeFixture(dir, process.env.SMS_SEND_STATE_DIR!, true);
    const file = join(dir, 'hostile.html');
    await reportWithPage(fixture.id, file);
    const source = await readFile(file, 'utf8');
    expect(source).not.toContain('Pw-PAGE-9');
    const { page, requests, dialogs } = await open(file);
    expect(await page.evaluate('typeof window.__pwned')).toBe('undefined');
    expect(dialogs).toEqual([]);
    expect(requests).toEqual([]);
    // The page's own script is the only one; nothing of the input became an element or a handler.
    expect(await page.locator('script').count()).toBe(1);
    expect(await page.locator('img, [onerror], [onload], [onmouseover]').count()).toBe(0);
    const text = (await page.locator('body').textContent()) ?? '';
    for (const hostile of HOSTILE) {
      expect(text, hostile).toContain(hostile.replace(/[\uD800-\uDFFF]/g, '\uFFFD'));
    }
    expect(await page.title()).toBe(`Campaign x${HOSTILE[1]}`);
    await page.close();
  });
});

/**
 * What is cut at the page's width: a chart, a chart's label, or a table's cell whose figures do
 * not fit the screen (a table may scroll only where it says so beside it).
 */
async function cutAtWidth(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const cut: string[] = [];
    const width = document.documentElement.clientWidth;
    if (document.documentElement.scrollWidth > width + 1) {
      cut.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} > ${width}`);
    }
    for (const svg of document.querySelectorAll('svg.chart')) {
      const box = svg.getBoundingClientRect();
      const name = svg.querySelector('title')?.textContent ?? '';
      if (box.right > width + 0.5) cut.push(`chart ${name} reaches ${box.right} of ${width}`);
      for (const text of svg.querySelectorAll('text')) {
        const r = text.getBoundingClientRect();
        if (r.right > width + 0.5 || r.left < -0.5) cut.push(`${name}: label ${text.textContent}`);
      }
    }
    for (const cell of document.querySelectorAll('td, th')) {
      const el = cell as HTMLElement;
      if (el.scrollWidth > el.clientWidth + 1) cut.push(`cell ${el.textContent} is cut`);
      const r = el.getBoundingClientRect();
      const scroller = el.closest('.scrolls');
      if (r.right > width + 0.5 && !scroller) cut.push(`cell ${el.textContent} is off screen`);
    }
    // A command line breaks between its words only, never after a flag's `--`.
    for (const word of document.querySelectorAll('code.command .word')) {
      const el = word as HTMLElement;
      const line = parseFloat(getComputedStyle(el).lineHeight);
      const room = el.closest('td, li')!.clientWidth;
      if (el.offsetWidth < room && el.offsetHeight > 1.5 * line)
        cut.push(`word ${el.textContent} breaks`);
    }
    for (const scroller of document.querySelectorAll('.scrolls')) {
      const el = scroller as HTMLElement;
      const before = el.previousElementSibling as HTMLElement | null;
      const sign = before?.classList.contains('scroll-sign') && before.offsetParent !== null;
      if (el.scrollWidth > el.clientWidth + 1 && !sign) cut.push('a table scrolls with no sign');
    }
    return cut;
  });
}

/**
 * Every label of the charts on screen (those the page shows at its width), with its size in CSS
 * pixels as drawn (its font's size times the chart's scale), and any two that overlap.
 */
async function chartLabels(page: Page): Promise<{ sizes: [string, number][]; overlaps: string[] }> {
  return page.evaluate(() => {
    const sizes: [string, number][] = [];
    const overlaps: string[] = [];
    for (const svg of document.querySelectorAll<SVGSVGElement>('svg.chart')) {
      if (svg.getBoundingClientRect().width === 0) continue;
      const scale = svg.getScreenCTM()!.a;
      const labels = [...svg.querySelectorAll('text')].map((t) => ({
        text: t.textContent ?? '',
        r: t.getBoundingClientRect(),
      }));
      for (const t of svg.querySelectorAll('text')) {
        sizes.push([t.textContent ?? '', parseFloat(getComputedStyle(t).fontSize) * scale]);
      }
      for (let i = 0; i < labels.length; i++)
        for (let j = i + 1; j < labels.length; j++) {
          const [a, b] = [labels[i]!.r, labels[j]!.r];
          if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom)
            overlaps.push(`${labels[i]!.text} and ${labels[j]!.text}`);
        }
    }
    return { sizes, overlaps };
  });
}

/** Masked numbers (`+45••••••01`, `••••••••er`) the page shows on more than one line. */
async function brokenNumbers(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const broken: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    let seen = 0;
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const found of (node.textContent ?? '').matchAll(/\+?\d{0,3}•+[^\s•]{0,2}/g)) {
        const range = document.createRange();
        range.setStart(node, found.index);
        range.setEnd(node, found.index + found[0].length);
        const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.bottom)));
        if (lines.size > 0) seen++;
        if (lines.size > 1) broken.push(found[0]);
      }
    }
    if (seen < 10) broken.push(`only ${seen} masked numbers found`);
    return broken;
  });
}

describe.each([
  [390, 'light'],
  [390, 'dark'],
  [1280, 'light'],
  [1280, 'dark'],
] as const)('the page at %i px, %s', (width, scheme) => {
  it('shows every chart, label and figure whole; looked at in its screenshot', async () => {
    const fixture = await writeFixture(dir, process.env.SMS_SEND_STATE_DIR!, false);
    const file = join(dir, `width-${width}-${scheme}.html`);
    await reportWithPage(fixture.id, file);
    const { page } = await open(file);
    await page.setViewportSize({ width, height: 900 });
    await page.emulateMedia({ colorScheme: scheme });
    const shot = join(process.env.SMS_SEND_SCREENSHOTS ?? dir, `page-${width}-${scheme}.png`);
    await page.screenshot({ path: shot, fullPage: true });
    expect(await cutAtWidth(page)).toEqual([]);
    expect(await brokenNumbers(page)).toEqual([]);
    const labels = await chartLabels(page);
    expect(labels.overlaps).toEqual([]);
    expect(labels.sizes.length).toBeGreaterThan(20);
    // Text a phone's reader can read: no label under 11 px (the page's chart, shrunk, drew smaller).
    expect(labels.sizes.filter(([, px]) => px < 11)).toEqual([]);
    // Each chart drawn at the width it has, so the outcome bar shows every outcome it holds.
    const bars = await page.evaluate(
      () =>
        [
          ...document.querySelectorAll(
            '#outcomes svg rect[class^="c-"], #outcomes svg g[class^="c-"] rect',
          ),
        ]
          .map((r) => r.getBoundingClientRect())
          .filter((r) => r.width > 0 && r.right <= document.documentElement.clientWidth + 0.5)
          .length,
    );
    expect(bars).toBeGreaterThan(1);
    await page.close();
  });
});
