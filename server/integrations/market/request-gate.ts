import { raceAbort, sleep } from './policy.ts';

/**
 * Who goes first to one provider within this process (docs/decisions/0037). ccxt's rate limiter
 * is a FIFO queue per exchange instance: a backtest's pages queued ahead of a live run would
 * delay the run by as many pages. So:
 * - live requests are counted from the moment they are asked for (synchronously, before any
 *   await), and a history page is not started while any live request is waiting or running;
 * - one history paging runs per provider at a time (later ones queue behind it);
 * - between its pages a paging rests at least as long as its previous page took (and at least
 *   `restMs`), so history takes at most about half of the provider's budget.
 */
export class RequestGate {
  private live = 0;
  private idle: Array<() => void> = [];
  private history: Promise<void> = Promise.resolve();
  private readonly restMs: () => number;

  /** `restMs`: the least rest between two history pages (e.g. the exchange's own spacing). */
  constructor(restMs: number | (() => number)) {
    this.restMs = typeof restMs === 'number' ? () => restMs : restMs;
  }

  /** Runs a live request. It is counted at once, so a history page asked for after this call waits. */
  async runLive<T>(run: () => Promise<T>): Promise<T> {
    this.live++;
    try {
      return await run();
    } finally {
      this.live--;
      if (this.live === 0) for (const wake of this.idle.splice(0)) wake();
    }
  }

  /**
   * Runs one history paging: `paging` gets `page(run)`, which starts `run` once no live request
   * is pending and the rest after the previous page is over. Rejects with the signal's reason
   * when it aborts while waiting.
   */
  async runHistory<T>(signal: AbortSignal, paging: (page: <P>(run: () => Promise<P>) => Promise<P>) => Promise<T>): Promise<T> {
    const previous = this.history;
    let release!: () => void;
    this.history = new Promise((resolve) => (release = resolve));
    try {
      await raceAbort(previous, signal);
      let restUntil = 0;
      const page = async <P>(run: () => Promise<P>): Promise<P> => {
        for (;;) {
          const rest = restUntil - Date.now();
          if (rest > 0) await sleep(rest, signal);
          if (this.live === 0) break;
          await raceAbort(new Promise<void>((resolve) => this.idle.push(resolve)), signal);
        }
        if (signal.aborted) throw signal.reason;
        const started = Date.now();
        try {
          return await run();
        } finally {
          const took = Date.now() - started;
          restUntil = Date.now() + Math.max(this.restMs(), took);
        }
      };
      return await paging(page);
    } finally {
      release();
    }
  }
}
