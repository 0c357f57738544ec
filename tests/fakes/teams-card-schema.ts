/**
 * The checks the Teams fake makes of a Workflows webhook's message, from Teams' and Adaptive
 * Cards' documented schema (adaptivecards.io/explorer; "Send Adaptive Cards using Incoming
 * Webhooks" / "Post a card in a chat or channel"): a `message` with attachments of content type
 * `application/vnd.microsoft.card.adaptive` whose content is an `AdaptiveCard` of a version Teams
 * renders (up to 1.5), each element of a known type with its required properties and enumerated
 * values, each action of a known type (`Action.OpenUrl` with an absolute URL).
 */
const MAX_VERSION = 1.5;
const ELEMENT_TYPES = new Set(['TextBlock', 'FactSet', 'Container', 'ColumnSet', 'Image', 'ImageSet', 'RichTextBlock', 'ActionSet', 'Table']);
const ACTION_TYPES = new Set(['Action.OpenUrl', 'Action.Submit', 'Action.ShowCard', 'Action.ToggleVisibility', 'Action.Execute']);
const ENUMS: Record<string, ReadonlySet<string>> = {
  size: new Set(['Default', 'Small', 'Medium', 'Large', 'ExtraLarge']),
  weight: new Set(['Default', 'Lighter', 'Bolder']),
  color: new Set(['Default', 'Dark', 'Light', 'Accent', 'Good', 'Warning', 'Attention']),
  spacing: new Set(['None', 'Small', 'Default', 'Medium', 'Large', 'ExtraLarge', 'Padding']),
  horizontalAlignment: new Set(['Left', 'Center', 'Right']),
};
const BOOLEANS = ['wrap', 'isSubtle', 'separator', 'isVisible'];

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The first way the message breaks the schema, as `path: rule`; null when it follows it. */
export function adaptiveCardProblem(message: unknown): string | null {
  if (!isObject(message)) return 'the body must be a JSON object';
  if (message.type !== 'message') return `type: expected "message", got ${JSON.stringify(message.type)}`;
  if (!Array.isArray(message.attachments) || message.attachments.length === 0) return 'attachments: expected a non-empty array';
  for (const [i, attachment] of message.attachments.entries()) {
    const at = `attachments[${i}]`;
    if (!isObject(attachment)) return `${at}: expected an object`;
    if (attachment.contentType !== 'application/vnd.microsoft.card.adaptive') return `${at}.contentType: expected "application/vnd.microsoft.card.adaptive"`;
    if (attachment.contentUrl !== undefined && attachment.contentUrl !== null && typeof attachment.contentUrl !== 'string') return `${at}.contentUrl: expected a string or null`;
    const problem = cardProblem(attachment.content, `${at}.content`);
    if (problem) return problem;
  }
  return null;
}

function cardProblem(card: unknown, at: string): string | null {
  if (!isObject(card)) return `${at}: expected an object`;
  if (card.type !== 'AdaptiveCard') return `${at}.type: expected "AdaptiveCard"`;
  if (typeof card.version !== 'string' || !/^\d+\.\d+$/.test(card.version)) return `${at}.version: required, a string like "1.4"`;
  if (Number(card.version) > MAX_VERSION) return `${at}.version: Teams renders Adaptive Cards up to ${MAX_VERSION}`;
  if (card.$schema !== undefined && typeof card.$schema !== 'string') return `${at}.$schema: expected a string`;
  if (card.body !== undefined) {
    if (!Array.isArray(card.body)) return `${at}.body: expected an array`;
    for (const [i, element] of card.body.entries()) {
      const problem = elementProblem(element, `${at}.body[${i}]`);
      if (problem) return problem;
    }
  }
  if (card.actions !== undefined) {
    if (!Array.isArray(card.actions)) return `${at}.actions: expected an array`;
    for (const [i, action] of card.actions.entries()) {
      const problem = actionProblem(action, `${at}.actions[${i}]`);
      if (problem) return problem;
    }
  }
  return null;
}

function elementProblem(element: unknown, at: string): string | null {
  if (!isObject(element)) return `${at}: expected an object`;
  if (typeof element.type !== 'string' || !ELEMENT_TYPES.has(element.type)) return `${at}.type: unknown element ${JSON.stringify(element.type)}`;
  for (const [property, allowed] of Object.entries(ENUMS)) {
    if (element[property] !== undefined && !allowed.has(String(element[property]))) return `${at}.${property}: not one of ${[...allowed].join(', ')}`;
  }
  for (const property of BOOLEANS) if (element[property] !== undefined && typeof element[property] !== 'boolean') return `${at}.${property}: expected a boolean`;
  switch (element.type) {
    case 'TextBlock':
      return typeof element.text === 'string' ? null : `${at}.text: required, a string`;
    case 'FactSet': {
      if (!Array.isArray(element.facts)) return `${at}.facts: required, an array`;
      for (const [i, fact] of element.facts.entries()) {
        if (!isObject(fact) || typeof fact.title !== 'string' || typeof fact.value !== 'string') return `${at}.facts[${i}]: title and value are required strings`;
      }
      return null;
    }
    case 'Container': {
      if (!Array.isArray(element.items)) return `${at}.items: required, an array`;
      for (const [i, item] of element.items.entries()) {
        const problem = elementProblem(item, `${at}.items[${i}]`);
        if (problem) return problem;
      }
      return null;
    }
    case 'RichTextBlock': {
      if (!Array.isArray(element.inlines)) return `${at}.inlines: required, an array`;
      for (const [i, inline] of element.inlines.entries()) {
        if (typeof inline === 'string') continue;
        if (!isObject(inline) || inline.type !== 'TextRun' || typeof inline.text !== 'string') return `${at}.inlines[${i}]: a string or a TextRun with its text`;
      }
      return null;
    }
    case 'Image':
      return typeof element.url === 'string' ? null : `${at}.url: required, a string`;
    default:
      return null;
  }
}

function actionProblem(action: unknown, at: string): string | null {
  if (!isObject(action)) return `${at}: expected an object`;
  if (typeof action.type !== 'string' || !ACTION_TYPES.has(action.type)) return `${at}.type: unknown action ${JSON.stringify(action.type)}`;
  if (action.title !== undefined && typeof action.title !== 'string') return `${at}.title: expected a string`;
  if (action.type === 'Action.OpenUrl') {
    if (typeof action.url !== 'string' || !URL.canParse(action.url)) return `${at}.url: required, an absolute URL`;
  }
  return null;
}
