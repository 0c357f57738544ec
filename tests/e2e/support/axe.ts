import AxeBuilder from '@axe-core/playwright';
import { expect, type Page, type TestInfo } from '@playwright/test';
import { waitForAnimations } from '../fixtures.ts';

/**
 * No serious or critical axe violation on the page, or inside `scope` (a CSS selector, e.g. the
 * open dialog's); the full report is attached to the test as `axe-<label>.json`.
 */
export async function expectNoSeriousViolations(page: Page, testInfo: TestInfo, label: string, scope?: string): Promise<void> {
  await waitForAnimations(page); // mid-fade text would fail contrast
  const builder = new AxeBuilder({ page });
  const results = await (scope ? builder.include(scope) : builder).analyze();
  const blocking = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  await testInfo.attach(`axe-${label}.json`, { body: JSON.stringify(results.violations, null, 2), contentType: 'application/json' });
  const report = blocking.map((v) => `[${v.impact}] ${v.id}: ${v.help}\n    ${v.nodes.map((n) => n.target.join(' ')).join('\n    ')}`).join('\n');
  expect(results.passes.length, `axe checked something on ${label}`).toBeGreaterThan(0);
  expect(blocking, `serious/critical axe violations on ${label}:\n${report}`).toEqual([]);
}
