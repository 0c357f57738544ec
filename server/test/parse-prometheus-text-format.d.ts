// The package ships no types: what the metrics tests read of its answer.
declare module 'parse-prometheus-text-format' {
  export default function parsePrometheusTextFormat(text: string): unknown[];
}
