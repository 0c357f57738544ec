import { estimateCostUsd, type TChatProvider, type TChatUsage } from '../../../contracts/chat.ts';
import { chatAnswers, chatCost, chatTimeToFirstToken, chatTokens } from '../../lib/telemetry/metrics.ts';

/** An answer as its usage row records it (docs/decisions/0091): counted, its tokens and its
 * estimated cost (the usage report's prices) added by provider and model. */
export function countAnswer(provider: TChatProvider, model: string, outcome: string, usage: TChatUsage, images: number): void {
  chatAnswers.inc({ provider, model, outcome });
  if (usage.inputTokens > 0) chatTokens.inc({ provider, model, direction: 'input' }, usage.inputTokens);
  if (usage.outputTokens > 0) chatTokens.inc({ provider, model, direction: 'output' }, usage.outputTokens);
  const cost = estimateCostUsd(model, { ...usage, images });
  if (cost > 0) chatCost.inc({ provider, model }, cost);
}

/** Wraps a streamed answer's text sink so its first text is timed from now. */
export function timingFirstToken(provider: TChatProvider, model: string, onText: (text: string) => Promise<void>): (text: string) => Promise<void> {
  const started = performance.now();
  let first = true;
  return (text) => {
    if (first) {
      first = false;
      chatTimeToFirstToken.observe({ provider, model }, (performance.now() - started) / 1000);
    }
    return onText(text);
  };
}
