/** One measured number and how it compares with its reference and target. */
export type BenchResult = {
  /** Row label in the summary table, e.g. `articles-read req/s`. */
  name: string;
  unit: string;
  ours: number;
  /** The same measurement on the reference (bare Fastify), when there is one. */
  reference: number | null;
  /** ours / reference. */
  ratio: number | null;
  /** Human-readable target, e.g. `ratio >= 0.4` or `< 400 MB`. */
  target: string;
  met: boolean;
  /** Anything that makes the number suspect (errors, non-2xx answers). */
  note?: string;
};

export type BenchOptions = {
  /** Shorter runs, for a smoke check. */
  quick: boolean;
  log: (line: string) => void;
};

/** A benchmark module in bench/ default-exports one of these; bench/run.ts lists them. */
export type Benchmark = {
  name: string;
  description: string;
  run(options: BenchOptions): Promise<BenchResult[]>;
};
