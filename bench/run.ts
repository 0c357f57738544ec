// `npm run bench [-- --quick] [-- name ...]`: runs the benchmarks one after another (never at
// once: two cores) and prints a summary table. Benchmarks report; tests assert: the exit code
// is 0 even when a target is missed (it is 1 only when a benchmark could not run).
import { writeFileSync } from 'node:fs';
import { arch, cpus, platform, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import agentTools from './agent-tools.ts';
import agentsScale, { agentsScaleConditions } from './agents-scale.ts';
import aiTools from './ai-tools.ts';
import articlePage from './article-page.ts';
import backtestApi from './backtest-api.ts';
import articlesRead from './articles-read.ts';
import backtest from './backtest.ts';
import chat from './chat.ts';
import chatDocuments from './chat-documents.ts';
import chatRender from './chat-render.ts';
import chatTools from './chat-tools.ts';
import conditions from './conditions.ts';
import documentsIngest from './documents-ingest.ts';
import eventStreams from './event-streams.ts';
import indicators from './indicators.ts';
import lighthouse from './lighthouse.ts';
import loadWithAgents from './load-with-agents.ts';
import mixedLoad from './mixed-load.ts';
import retrieval from './retrieval.ts';
import runRetention from './retention-size.ts';
import runtimeCost from './runtime-cost.ts';
import serverMemory from './server-memory.ts';
import { stopBenchPostgres } from './lib.ts';
import type { Benchmark, BenchResult } from './types.ts';

/** The registry: add a module exporting a Benchmark and list it here. */
const BENCHMARKS: Benchmark[] = [articlesRead, articlePage, serverMemory, chat, aiTools, chatTools, chatDocuments, chatRender, mixedLoad, loadWithAgents, indicators, backtest, conditions, backtestApi, agentTools, agentsScale, agentsScaleConditions, runtimeCost, runRetention, documentsIngest, eventStreams, retrieval, lighthouse];

const { values, positionals } = parseArgs({
  options: { quick: { type: 'boolean', default: false }, list: { type: 'boolean', default: false } },
  allowPositionals: true,
});

if (values.list) {
  for (const b of BENCHMARKS) console.log(`${b.name.padEnd(16)} ${b.description}`);
  process.exit(0);
}

const unknown = positionals.filter((name) => !BENCHMARKS.some((b) => b.name === name));
if (unknown.length > 0) {
  console.error(`unknown benchmark(s): ${unknown.join(', ')}; known: ${BENCHMARKS.map((b) => b.name).join(', ')}`);
  process.exit(2);
}
const selected = positionals.length > 0 ? BENCHMARKS.filter((b) => positionals.includes(b.name)) : BENCHMARKS;

const fmt = (n: number | null, digits = 1) =>
  n === null ? '-' : n >= 1000 ? n.toFixed(0) : n.toFixed(digits);

const results: BenchResult[] = [];
const failures: string[] = [];
for (const bench of selected) {
  console.log(`\n== ${bench.name}${values.quick ? ' (quick)' : ''}: ${bench.description}`);
  const started = Date.now();
  try {
    const rows = await bench.run({ quick: values.quick, log: (line) => console.log(line) });
    for (const r of rows) {
      console.log(
        `${r.met ? 'PASS' : 'FAIL'} ${r.name}: ours ${fmt(r.ours)} ${r.unit}` +
          (r.reference === null ? '' : `, reference ${fmt(r.reference)} ${r.unit}, ratio ${fmt(r.ratio, 2)}`) +
          `; target ${r.target}${r.note ? ` (${r.note})` : ''}`,
      );
    }
    results.push(...rows);
  } catch (err) {
    failures.push(bench.name);
    console.error(`ERROR ${bench.name}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  }
  console.log(`   (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}

const header = ['name', 'ours', 'reference', 'ratio', 'target', 'met'];
const table = results.map((r) => [
  r.name,
  `${fmt(r.ours)} ${r.unit}`,
  r.reference === null ? '-' : `${fmt(r.reference)} ${r.unit}`,
  fmt(r.ratio, 2),
  r.target,
  r.met ? 'yes' : 'NO',
]);
const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => row[i]!.length)));
const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ');
console.log(`\n${line(header)}\n${widths.map((w) => '-'.repeat(w)).join('-|-')}`);
for (const row of table) console.log(line(row));

const missed = results.filter((r) => !r.met).map((r) => r.name);
console.log(
  missed.length === 0 && failures.length === 0
    ? `\nall ${results.length} targets met`
    : `\n${missed.length > 0 ? `targets missed: ${missed.join(', ')}` : ''}${failures.length > 0 ? `${missed.length > 0 ? '; ' : ''}could not run: ${failures.join(', ')}` : ''}`,
);
await stopBenchPostgres();
writeResults();
process.exitCode = failures.length > 0 ? 1 : 0;

/**
 * bench/results.md: the same table with the machine it ran on, so a figure can be read next to
 * the CPU count and Node version that produced it. Written on every run (say which and how).
 */
function writeResults(): void {
  const cell = (text: string) => text.replace(/\|/g, '\\|');
  const rows = results.map(
    (r) =>
      `| ${cell(r.name)} | ${fmt(r.ours)} ${r.unit} | ${r.reference === null ? '-' : `${fmt(r.reference)} ${r.unit}`} | ${fmt(r.ratio, 2)} | ${cell(r.target)} | ${r.met ? 'yes' : '**no**'}${r.note ? ` (${cell(r.note)})` : ''} |`,
  );
  const text = [
    '# Benchmark results',
    '',
    `Written by \`npm run bench${values.quick ? ' -- --quick' : ''}${positionals.length ? ` -- ${positionals.join(' ')}` : ''}\` on ${new Date().toISOString()}.`,
    `Machine: ${cpus().length} CPUs (${cpus()[0]?.model.trim() ?? 'unknown'}), ${Math.round(totalmem() / 2 ** 30)} GiB, ${platform()} ${arch()}; Node ${process.version}.`,
    values.quick ? '\nQuick run: shorter durations and smaller loads than the targets are set for.' : '',
    '',
    '| name | ours | reference | ratio | target | met |',
    '|---|---|---|---|---|---|',
    ...rows,
    '',
    missed.length === 0 && failures.length === 0 ? `All ${results.length} targets met.` : '',
    missed.length > 0 ? `Targets missed: ${missed.join(', ')}.` : '',
    failures.length > 0 ? `Could not run: ${failures.join(', ')}.` : '',
    '',
  ].filter((line, i, all) => line !== '' || all[i - 1] !== '');
  writeFileSync(new URL('./results.md', import.meta.url), text.join('\n'));
  console.log(`written: bench/results.md`);
}
