/**
 * The message a Microsoft Teams Workflows webhook takes ("Send webhook alerts to a channel"): a
 * message activity with one Adaptive Card attachment, as Teams' docs give it:
 * `{type: 'message', attachments: [{contentType: 'application/vnd.microsoft.card.adaptive',
 * contentUrl: null, content: {type: 'AdaptiveCard', version, body, actions}}]}`.
 * Version 1.4: what Teams renders on desktop, web and mobile alike (docs/decisions/0090).
 */
export const ADAPTIVE_CARD_CONTENT_TYPE = 'application/vnd.microsoft.card.adaptive';
export const ADAPTIVE_CARD_VERSION = '1.4';

/** What a card tells: the title, its text, facts as label and value, the brief, and the link. */
export type TeamsCardInput = {
  title: string;
  text: string;
  facts: ReadonlyArray<{ title: string; value: string }>;
  brief: { by: string; text: string } | null;
  link: string;
};

// A Teams message may be at most about 28 KB; each text is clipped well inside it.
const TEXT_MAX = 4000;
const FACT_MAX = 500;
const FACTS_MAX = 20;
const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

export function teamsMessage(card: TeamsCardInput): object {
  const body: object[] = [{ type: 'TextBlock', text: clip(card.title, TEXT_MAX), size: 'Medium', weight: 'Bolder', wrap: true }];
  if (card.text) body.push({ type: 'TextBlock', text: clip(card.text, TEXT_MAX), wrap: true });
  const facts = card.facts.slice(0, FACTS_MAX).map((f) => ({ title: clip(f.title, FACT_MAX), value: clip(f.value, FACT_MAX) }));
  if (facts.length > 0) body.push({ type: 'FactSet', facts });
  if (card.brief) {
    body.push({ type: 'TextBlock', text: clip(card.brief.by, FACT_MAX), weight: 'Bolder', wrap: true, spacing: 'Medium' });
    // An assistant's text, untrusted: a TextRun shows it as it is, where a TextBlock would render
    // its markdown (links, emphasis) (SECURITY.md, alert briefs).
    body.push({ type: 'RichTextBlock', inlines: [{ type: 'TextRun', text: clip(card.brief.text, TEXT_MAX) }] });
  }
  return {
    type: 'message',
    attachments: [
      {
        contentType: ADAPTIVE_CARD_CONTENT_TYPE,
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: ADAPTIVE_CARD_VERSION,
          body,
          actions: [{ type: 'Action.OpenUrl', title: 'Open the console', url: card.link }],
          msteams: { width: 'Full' },
        },
      },
    ],
  };
}
