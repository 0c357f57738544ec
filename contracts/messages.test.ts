import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import * as agentParameters from './agent-parameters.ts';
import * as agents from './agents.ts';
import * as articles from './articles.ts';
import * as auth from './auth.ts';
import * as backtest from './backtest.ts';
import * as channels from './channels.ts';
import * as chatHistory from './chat-history.ts';
import * as chat from './chat.ts';
import * as notifications from './notifications.ts';
import * as settings from './settings.ts';
import * as users from './users.ts';

/**
 * Issue 29 item 11: messages named internal fields ('maxPerHour must be at least 1', 'candles
 * must be at most 5000') or left out their limit ('Title too long'). Every message a schema in
 * contracts/ can answer with is read here, from the schemas themselves, so a new one that does
 * either fails this test: it starts as a sentence, names no field by its code name, says no
 * 'too long' without the number, and a length or size rule states its limit as people read
 * numbers (5,000). The forms' own fields are checked further below by their labels.
 */

const MODULES = { agentParameters, agents, articles, auth, backtest, channels, chatHistory, chat, notifications, settings, users };

type TCheckDef = { check?: string; error?: (issue: object) => unknown; minimum?: number; maximum?: number; value?: number; length?: number };
type TSchemaDef = {
  type: string;
  error?: (issue: object) => unknown;
  checks?: Array<{ _zod: { def: TCheckDef } }>;
  shape?: Record<string, z.ZodType>;
  options?: z.ZodType[];
  getter?: () => z.ZodType;
  [key: string]: unknown;
};
type TMessage = { where: string; message: string; limit?: number; rule: string };

const isSchema = (value: unknown): value is z.ZodType => typeof value === 'object' && value !== null && '_zod' in value;
const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: TSchemaDef } })._zod.def;

/** What an error function answers for a missing value and for a wrong one. */
function messagesOf(error: ((issue: object) => unknown) | undefined): string[] {
  if (!error) return [];
  const answers = [error({ code: 'custom', input: undefined }), error({ code: 'invalid_type', input: 1 }), error({ code: 'invalid_union', input: 1, errors: [] })];
  return [...new Set(answers.flatMap((a) => (typeof a === 'string' ? [a] : a && typeof a === 'object' && 'message' in a ? [String(a.message)] : [])))];
}

/** Every message a schema holds, with the limit of the rule it belongs to, walking into its parts. */
function collect(schema: z.ZodType, where: string, out: TMessage[], seen = new Set<unknown>()): TMessage[] {
  if (seen.has(schema)) return out;
  seen.add(schema);
  const def = defOf(schema);
  for (const message of messagesOf(def.error)) out.push({ where, message, rule: def.type });
  for (const { _zod } of def.checks ?? []) {
    const check = _zod.def;
    const limit = check.minimum ?? check.maximum ?? check.value ?? check.length;
    for (const message of messagesOf(check.error)) out.push({ where, message, limit: typeof limit === 'number' ? limit : undefined, rule: check.check ?? 'custom' });
  }
  for (const [key, child] of Object.entries(def.shape ?? {})) collect(child, `${where}.${key}`, out, seen);
  for (const key of ['innerType', 'element', 'in', 'out', 'keyType', 'valueType', 'left', 'right'] as const) {
    const child = def[key];
    if (isSchema(child)) collect(child, where, out, seen);
  }
  for (const option of def.options ?? []) collect(option, where, out, seen);
  if (def.getter) collect(def.getter(), where, out, seen);
  return out;
}

// Each part once, named where the walk first meets it (ZThreshold under ZNotifications under ...).
const walked = new Set<unknown>();
const ALL: TMessage[] = Object.entries(MODULES).flatMap(([module, exports]) =>
  Object.entries(exports).flatMap(([name, value]) => (isSchema(value) ? collect(value, `${module}.${name}`, [], walked) : [])),
);

/** Limits a message states in another unit than the rule counts in, with why. */
const OTHER_UNIT: Record<string, string> = {
  // The rule counts base64 characters; people know an image's size in MB.
  'chat.ZUploadImage.data': 'MB',
};

/** A limit as people read it: thousands separators, decimals as written. */
const limitText = (limit: number) => limit.toLocaleString('en-US', { maximumFractionDigits: 10 });

describe('every message the schemas answer with', () => {
  it('are found (the walk reaches into objects, arrays, unions, pipes and defaults)', () => {
    expect(ALL.length).toBeGreaterThan(80);
    expect(ALL.map((m) => m.message)).toContain('Please provide a name for your agent');
  });

  it.each(ALL.map((m) => [`${m.where}: ${m.message}`, m] as const))('%s', (_, { where, message, limit, rule }) => {
    // A sentence, not a field's code name followed by a rule ('value must be 0 or more').
    expect(message).toMatch(/^[A-Z0-9'"]/);
    // No code name anywhere: maxPerHour, daysActive, questionId.
    expect(message).not.toMatch(/\b[a-z]+[A-Z][A-Za-z]*\b/);
    // A limit is stated, never only 'too long'.
    expect(message).not.toMatch(/\btoo (long|short|large|big|many|few|small)\b/i);
    // A length or size rule says its number, except 'required' (at least 1).
    const required = rule === 'min_length' && limit === 1;
    if (limit !== undefined && ['min_length', 'max_length', 'length_equals', 'greater_than', 'less_than'].includes(rule) && !required) {
      expect(message).toContain(where in OTHER_UNIT ? OTHER_UNIT[where]! : limitText(limit));
    }
  });
});

/**
 * The forms' fields, by where the walk finds them, with the label the screen shows them by: each
 * of their messages names the field that way ('Notifications per hour must be at least 1').
 */
const FORM_LABELS: Record<string, string> = {
  'agents.ZSchedule.frequency': 'Frequency',
  'agents.ZSchedule.daysActive': 'active days',
  'agents.ZSchedule.activeHours': 'active hours',
  'agents.ZSchedule.timeZone': 'Time zone',
  'agents.ZThreshold.type': 'Type',
  'agents.ZThreshold.value': 'Value',
  'agents.ZThreshold.message': 'Message',
  'agents.ZAlertBriefChoice.provider': 'assistant',
  'agents.ZAlertBriefChoice.model': 'model',
  'agents.ZNotifications.thresholds': 'alert thresholds',
  'agents.ZNotifications.maxPerHour': 'Notifications per hour',
  'agents.ZNotifications.channels': 'channel',
  'agents.ZAgentName': 'name',
  ...Object.fromEntries(
    agents.AGENT_TEMPLATES.flatMap((template) =>
      Object.entries(template.defaultConfig.parameters).map(([key, definition]) => [
        `agents.${template.type === 'stock' ? 'ZStockScannerParameters' : 'ZCryptoMonitorParameters'}.${key}`,
        definition.label,
      ]),
    ),
  ),
  'backtest.ZBacktestCandles': 'Candles per market',
  'articles.ZArticleInput.title': 'Title',
  'articles.ZArticleInput.category': 'Category',
  'articles.ZArticleInput.readTime': 'Read time',
  'articles.ZArticleInput.excerpt': 'Excerpt',
  'articles.ZArticleInput.content': 'Content',
  'channels.ZCreateChannel.name': 'name',
  'channels.ZCreateChannel.url': 'address',
  'channels.ZCreateChannel.botToken': 'token',
  'channels.ZCreateChannel.chatId': 'chat',
  'settings.ZUpdateSettings.timeZone': 'Time zone',
  'settings.ZUpdateSettings.alertEmail': 'email',
  'auth.ZEmail': 'email',
  'auth.ZLocalLogin.name': 'Name',
};

describe("the forms' messages", () => {
  const fieldOf = (where: string) =>
    Object.keys(FORM_LABELS)
      .filter((field) => where === field || where.startsWith(`${field}.`))
      .sort((a, b) => b.length - a.length)[0];
  const formMessages = ALL.flatMap((m) => {
    const field = fieldOf(m.where);
    return field ? [[`${m.where}: ${m.message}`, m.message, FORM_LABELS[field]!] as const] : [];
  });

  it('are found for every field listed', () => {
    const found = new Set(ALL.map((m) => fieldOf(m.where)));
    expect(Object.keys(FORM_LABELS).filter((field) => !found.has(field))).toEqual([]);
  });

  it.each(formMessages)('%s names its field as the screen does', (_, message, label) => {
    expect(message.toLowerCase()).toContain(label.toLowerCase());
  });
});
