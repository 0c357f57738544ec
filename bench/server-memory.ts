import { procMemoryMb, rssMb, sleep, startAppServer, startBareServer } from './lib.ts';
import type { Benchmark } from './types.ts';

const TARGET_MB = 300;
/** The peak during start-up (VmHWM), issue 19. */
const PEAK_TARGET_MB = 600;

/**
 * Resident memory of `node server/index.ts` on a fresh PGlite directory 10 s after /api/health
 * first answers, next to a bare Fastify hello-world measured the same way; the peak during
 * start-up is printed too. Why 10 s: the server returns start-up's heap to the system with one
 * collection after it is ready (docs/decisions/0054), and an earlier sample may measure
 * start-up, not the server's footprint.
 */
const SETTLE_MS = 10_000;

const benchmark: Benchmark = {
  name: 'server-memory',
  description: `RSS of our server after start (target < ${TARGET_MB} MB) vs a bare Fastify hello-world`,
  async run({ quick, log }) {

    log('starting our server on a fresh PGlite directory...');
    const ours = await startAppServer();
    let oursMb: number;
    let peakMb: number;
    try {
      // The quick run samples earlier, so its figure still includes some of start-up.
      await sleep(quick ? 3_000 : SETTLE_MS);
      oursMb = rssMb(ours.pid);
      peakMb = procMemoryMb(ours.pid, 'VmHWM');
      log(`  ours: ${oursMb.toFixed(1)} MB RSS (peak so far ${peakMb.toFixed(1)} MB)`);
    } finally {
      await ours.stop();
    }

    log('starting bare Fastify hello-world...');
    const bare = await startBareServer();
    let bareMb: number;
    let barePeakMb: number;
    try {
      // Bare Fastify has no PGlite start-up to settle from; the quick run samples it sooner.
      await sleep(quick ? 1_000 : SETTLE_MS);
      bareMb = rssMb(bare.pid);
      barePeakMb = procMemoryMb(bare.pid, 'VmHWM');
      log(`  bare: ${bareMb.toFixed(1)} MB RSS (peak so far ${barePeakMb.toFixed(1)} MB)`);
    } finally {
      await bare.stop();
    }

    return [
      {
        name: 'server-memory',
        unit: 'MB RSS',
        ours: oursMb,
        reference: bareMb,
        ratio: oursMb / bareMb,
        target: `< ${TARGET_MB} MB`,
        met: oursMb < TARGET_MB,
      },
      {
        name: 'server-memory peak during start',
        unit: 'MB',
        ours: peakMb,
        reference: barePeakMb,
        ratio: peakMb / barePeakMb,
        target: `< ${PEAK_TARGET_MB} MB`,
        met: peakMb < PEAK_TARGET_MB,
      },
    ];
  },
};

export default benchmark;
