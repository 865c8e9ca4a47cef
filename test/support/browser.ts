import { Browser, chromium } from 'playwright-core';

/**
 * Debian's chromium, headless, as the machine's probe starts it: without the background-networking
 * flags its connections are refused by the closed network, many at a time.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
