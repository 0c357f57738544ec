import AxeBuilder from '@axe-core/playwright';
import type { Page, TestInfo } from '@playwright/test';
import { expect, waitForAnimations } from '../fixtures.ts';

/** No serious or critical axe violation inside `scope` (a selector: the open dialog, main). */
export async function expectNoSeriousViolations(page: Page, testInfo: TestInfo, scope: string, label: string): Promise<void> {
  await waitForAnimations(page);
  const results = await new AxeBuilder({ page }).include(scope).analyze();
  const blocking = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  await testInfo.attach(`axe-${label}.json`, { body: JSON.stringify(results.violations, null, 2), contentType: 'application/json' });
  const report = blocking.map((v) => `[${v.impact}] ${v.id}: ${v.help}\n    ${v.nodes.map((n) => n.target.join(' ')).join('\n    ')}`).join('\n');
  expect(results.passes.length, `axe checked something on ${label}`).toBeGreaterThan(0);
  expect(blocking, `serious/critical axe violations on ${label}:\n${report}`).toEqual([]);
}
