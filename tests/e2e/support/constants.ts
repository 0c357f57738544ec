import { statfsSync } from 'node:fs';

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

/**
 * The journeys' browser: the same, with its compositor (software, with --disable-gpu) as a thread
 * of the browser process instead of a process of its own, which saves the frames' trips between
 * processes: the journeys took 3.5-6% less CPU (alternated runs of 34 journeys, 2026-11-29;
 * docs/decisions/0106). The benchmarks keep CHROMIUM_ARGS, the browser as users run it.
 */
export const JOURNEY_CHROMIUM_ARGS = [...CHROMIUM_ARGS, '--in-process-gpu'] as const;

/**
 * Playwright's own launch arguments to leave out. It passes --disable-dev-shm-usage for Docker's
 * 64 MB /dev/shm, so Chromium keeps its shared memory (frames, bitmaps, IPC) in files under /tmp
 * instead: on a machine whose /tmp is a disk, that memory is written back to it. Where /dev/shm
 * has room (1 GiB free; Chromium's own default then), it stays in memory: the journeys took about
 * 7% less CPU so (four alternated runs of 41 journeys here, /tmp on disk).
 */
export const CHROMIUM_IGNORED_DEFAULT_ARGS: string[] = devShmFreeBytes() >= 1024 ** 3 ? ['--disable-dev-shm-usage'] : [];

function devShmFreeBytes(): number {
  try {
    const stats = statfsSync('/dev/shm');
    return stats.bavail * stats.bsize;
  } catch {
    return 0;
  }
}

/** The one admin of the e2e server (ADMIN_EMAILS); every other email signs in as a guest. */
export const ADMIN_EMAIL = 'admin@example.com';
export const ADMIN_NAME = 'Ada Admin';

/** CONTACT_EMAIL's default: the server is started without overriding it. */
export const CONTACT_EMAIL = 'hello@axiom-automation.com';

/** SPEC: the header is 64 px tall and the anchors scroll with a 64 px offset. */
export const HEADER_OFFSET_PX = 64;
