// Launches the headless Chromium this run found (test/setup/browser.ts), with the flags a root
// user in a sandbox without network needs: one browser profile per test file.
import { chromium, type BrowserContext } from 'playwright-core';
import { inject } from 'vitest';

export function launchBrowser(profile: string): Promise<BrowserContext> {
  const { executablePath, fontconfig } = inject('browser');
  return chromium
    .launchPersistentContext(profile, {
      executablePath,
      headless: true,
      env: fontconfig === undefined ? undefined : { ...process.env, FONTCONFIG_FILE: fontconfig },
      args: [
        '--no-sandbox',
        '--no-zygote',
        '--disable-gpu',
        '--disable-dev-shm-usage',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--disable-quic',
        '--font-render-hinting=none',
      ],
    })
    .catch((error: unknown) => {
      throw new Error(
        `${executablePath} did not start (${(error as Error).message.split('\n')[0]}); the ` +
          'packaged one needs libnss3, libnspr4 and libexpat1 from the system',
      );
    });
}
