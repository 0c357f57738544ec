/** Shared by the Playwright config, the fixtures and the helpers that start extra servers. */
export const CHROMIUM_PATH = '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
] as const;

/** The one admin of the e2e server (ADMIN_EMAILS); every other email signs in as a guest. */
export const ADMIN_EMAIL = 'admin@example.com';
export const ADMIN_NAME = 'Ada Admin';

/** CONTACT_EMAIL's default: the server is started without overriding it. */
export const CONTACT_EMAIL = 'hello@axiom-automation.com';

/** SPEC: the header is 64 px tall and the anchors scroll with a 64 px offset. */
export const HEADER_OFFSET_PX = 64;
