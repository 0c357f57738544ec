import { WEBHOOK_TEMPLATE_PLACEHOLDERS, type TWebhookTemplatePlaceholder } from '../../../contracts/channels.ts';

/** Each placeholder's value in one message, as text (empty when the message has none). */
export type TemplateValues = Record<TWebhookTemplatePlaceholder, string>;

/** `{{ name }}`: anything between double braces is a placeholder, so a misspelt one is caught, never sent as is. */
const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;

const isPlaceholder = (name: string): name is TWebhookTemplatePlaceholder => Object.hasOwn(WEBHOOK_TEMPLATE_PLACEHOLDERS, name);

/** A value escaped for the inside of a JSON string: quotes, backslashes and control characters. */
const jsonEscaped = (value: string) => JSON.stringify(value).slice(1, -1);

/**
 * The template with each placeholder replaced by its value, JSON-escaped: a value can never end
 * its string or add a key, whatever an agent's name or an assistant's brief holds.
 */
export function renderTemplate(template: string, values: TemplateValues): string {
  return template.replace(PLACEHOLDER, (whole, name: string) => (isPlaceholder(name) ? jsonEscaped(values[name]) : whole));
}

/**
 * Values that prove a template safe to send whatever a message holds: each has a quote, a
 * backslash and a line break, so a placeholder outside a JSON string makes the body unreadable
 * here, at save, rather than at some later message.
 */
const SAMPLE: TemplateValues = {
  'agent.name': 'Sample "agent" \\ one',
  'agent.id': 'agent-"id"\n',
  market: 'AAPL "sample"\n',
  title: 'Sample "title"\n',
  message: 'AAPL moved 3.2% "sample"\nsecond line \\',
  alerts: 'AAPL moved 3.2% "sample"\nMSFT moved 2.1%',
  brief: 'A "sample" brief\n\\',
  link: 'https://example.com/agents-console?agent="x"\n',
  event: 'notification"\n',
  'notification.id': 'id-"sample"\n',
  'run.id': '42"\n',
  created_at: '2026-01-01T00:00:00.000Z"\n',
};

/**
 * Why the template cannot be sent, in a sentence for its field; null when it can: every
 * placeholder known, and the body JSON once filled in with the sample values.
 */
export function templateProblem(template: string): string | null {
  const unknown = [...template.matchAll(PLACEHOLDER)].map((m) => m[1]!).find((name) => !isPlaceholder(name));
  if (unknown !== undefined) {
    return `Unknown placeholder {{${unknown}}}; use one of: ${Object.keys(WEBHOOK_TEMPLATE_PLACEHOLDERS)
      .map((name) => `{{${name}}}`)
      .join(', ')}`;
  }
  try {
    JSON.parse(renderTemplate(template, SAMPLE));
    return null;
  } catch (err) {
    const reason = err instanceof SyntaxError ? err.message : String(err);
    return `The template is not JSON once its placeholders are filled in (${reason}); put each placeholder inside a JSON string, like "text": "{{title}}"`;
  }
}
