import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { CONTINUE_PROMPT } from '../../contracts/chat.ts';
import type { FakeAiEnding } from '../fakes/ai-providers.ts';
import { expect, test } from './fixtures.ts';

// Issue 29 item 1: an answer cut short never looks complete (docs/decisions/0061). The journeys'
// fake providers end one question's answers the way the real provider does (POST
// /__control/ending, for that question alone: the other journeys' answers are not touched).

const FAKE_AI = `http://127.0.0.1:${process.env.E2E_FAKE_AI_PORT}`;

async function endAnswersTo(page: Page, prompt: string, ending: FakeAiEnding) {
  const res = await page.request.post(`${FAKE_AI}/__control/ending`, { data: { provider: 'openai', ending, prompt } });
  expect(res.status()).toBe(200);
}

async function send(page: Page, text: string) {
  const input = page.getByLabel('Message GPT');
  await input.fill(text);
  await input.press('Enter');
}

test.describe('chat: answers that end early', () => {
  test('an answer cut at the length limit says so, survives a reload, and Continue goes on from it; a lost connection offers Retry', async ({ page, login, owner }) => {
    const id = Math.random().toString(36).slice(2, 8);
    const cutQuestion = `How do I close the books? (${id})`;
    const lostQuestion = `What are invoices? (${id})`;
    await endAnswersTo(page, cutQuestion, 'length');
    await endAnswersTo(page, lostQuestion, 'no-close');
    await login(page, owner);
    await page.goto('/chat-console');
    const log = page.getByRole('log', { name: 'Messages' });

    await send(page, cutQuestion);
    const lengthNote = log.getByText(/^The answer was cut short: it reached its length limit of [\d,]+ tokens\.$/);
    await expect(lengthNote).toBeVisible();
    const whole = `Reply to: ${cutQuestion}`;
    await expect(log.getByText(whole.slice(0, Math.ceil(whole.length / 2)), { exact: true })).toBeVisible();
    await expect(log.getByRole('button', { name: 'Continue' })).toBeVisible();
    const axe = await new AxeBuilder({ page }).include('[role="log"]').analyze();
    expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);

    // Kept on the server with its note: after a reload the chat shows it as it was.
    await page.reload();
    await expect(page.getByLabel('Message GPT')).toBeVisible();
    const heading = page.getByRole('heading', { name: 'Chat History' });
    if (!(await heading.isVisible())) await page.getByRole('button', { name: 'Show chat history' }).click();
    const history = page.getByRole('complementary', { name: 'Chat history' }).or(page.getByRole('dialog', { name: 'Chat history' }));
    await history.getByRole('button', { name: new RegExp(`^How do I close the books\\? \\(${id}\\)`) }).click();
    await expect(lengthNote).toBeVisible();
    await log.getByRole('button', { name: 'Continue' }).click();
    await expect(log.getByText(`You: ${CONTINUE_PROMPT}`, { exact: true })).toBeVisible();
    await expect(log.getByText(`Reply to: ${CONTINUE_PROMPT}`)).toBeVisible();
    await expect(lengthNote).toBeVisible(); // the cut answer keeps its note
    await expect(log.getByRole('button', { name: 'Continue' })).toHaveCount(0);
    await expect(page.getByLabel('Message GPT')).toBeEnabled();

    // The connection to the provider closes after the last text, without its closing event.
    await send(page, lostQuestion);
    await expect(log.getByText('The answer was cut short: GPT closed the connection before the answer was complete')).toBeVisible();
    await expect(log.getByText(`Reply to: ${lostQuestion}`, { exact: true })).toBeVisible();
    await endAnswersTo(page, lostQuestion, 'complete');
    await log.getByRole('button', { name: 'Retry' }).click();
    await expect(log.getByRole('group', { name: 'Versions of this answer' })).toContainText('2 / 2');
    await expect(log.getByText('The answer was cut short: GPT closed the connection before the answer was complete')).toHaveCount(0);
    await expect(log.getByText(`Reply to: ${lostQuestion}`, { exact: true })).toBeVisible();
  });
});
