import { fireEvent, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Route, Routes } from 'react-router';
import { jsonResponse, stubFetch } from '../../../test/fetch-stub.ts';
import { renderWithProviders, signedInAs } from '../../../test/render.tsx';
import { sampleArticle } from '../../../test/sample-article.ts';
import { setSettingsTimeZone } from '../../../lib/time-zone.ts';
import CreateArticlePage from './create-article-page.tsx';
import EditArticlePage from './edit-article-page.tsx';

/** The form's publishing section (issue 34 item 2, docs/decisions/0098). */
const ADMIN = signedInAs('admin', { id: '00000000-0000-4000-8000-0000000000ad' });
const VALID = { title: 'Automating invoices', category: 'Automation', excerpt: 'How we automated invoice processing.', content: 'A'.repeat(60) };

beforeEach(() => {
  vi.clearAllMocks();
  localStorage.clear();
  setSettingsTimeZone('Asia/Tokyo');
});
afterEach(() => setSettingsTimeZone(null));

const set = (name: string, value: string) => fireEvent.change(screen.getByLabelText(name), { target: { value } });
const scheduleField = () => screen.getByLabelText('Schedule for (Asia/Tokyo)');
const toggle = () => screen.getByRole('switch', { name: 'Publish Article' });
function fill() {
  for (const [name, value] of [['Title', VALID.title], ['Category', VALID.category], ['Excerpt', VALID.excerpt], ['Content', VALID.content]] as const) set(name, value);
}
/** A wall time in Tokyo (UTC+9, no daylight saving) a day or more ahead, and the instant it means. */
function tokyoTomorrowAt(hour: number) {
  const day = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
  const wall = `${day}T${String(hour).padStart(2, '0')}:30`;
  return { wall, iso: new Date(`${wall}:00+09:00`).toISOString() };
}

describe('publishing section', () => {
  it('takes the time on the clock of the zone it names, sends the instant, and turns Publish off', async () => {
    const { requests } = stubFetch({ 'POST /api/articles': () => jsonResponse(sampleArticle({ status: 'scheduled' }), 201) });
    renderWithProviders(<CreateArticlePage />, { auth: ADMIN, path: '/create-article' });
    fill();
    await userEvent.click(toggle());
    expect(toggle()).toHaveAttribute('aria-checked', 'true');
    expect(scheduleField()).toHaveAccessibleDescription('Leave empty to keep it a draft until you publish it.');

    const { wall, iso } = tokyoTomorrowAt(9);
    set('Schedule for (Asia/Tokyo)', wall);
    expect(toggle()).toHaveAttribute('aria-checked', 'false');
    expect(scheduleField()).toHaveValue(wall);
    expect(scheduleField()).toHaveAccessibleDescription(expect.stringContaining('09:30 GMT+9.'));
    await userEvent.click(screen.getByRole('button', { name: 'Create Article' }));
    await vi.waitFor(() => expect(requests).toHaveLength(1));
    expect(requests[0]!.body).toMatchObject({ published: false, publishAt: iso });
  });

  it('publishing now clears the time; Clear the time makes it a draft again', async () => {
    stubFetch({});
    renderWithProviders(<CreateArticlePage />, { auth: ADMIN, path: '/create-article' });
    set('Schedule for (Asia/Tokyo)', tokyoTomorrowAt(10).wall);
    await userEvent.click(toggle());
    expect(scheduleField()).toHaveValue('');
    await userEvent.click(toggle());
    set('Schedule for (Asia/Tokyo)', tokyoTomorrowAt(10).wall);
    await userEvent.click(screen.getByRole('button', { name: 'Clear the time' }));
    expect(scheduleField()).toHaveValue('');
    expect(toggle()).toHaveAttribute('aria-checked', 'false');
  });

  it('refuses a past time under the field with the shared rule, and sends nothing', async () => {
    const { fetchMock } = stubFetch({});
    renderWithProviders(<CreateArticlePage />, { auth: ADMIN, path: '/create-article' });
    fill();
    set('Schedule for (Asia/Tokyo)', '2020-01-01T09:00');
    await userEvent.click(screen.getByRole('button', { name: 'Create Article' }));
    expect(await screen.findByText('Publish time must be in the future')).toBeInTheDocument();
    expect(scheduleField()).toHaveAttribute('aria-invalid', 'true');
    expect(scheduleField()).toHaveAccessibleDescription(expect.stringContaining('Publish time must be in the future'));
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('opens a scheduled article with its time in the zone, and saving an edit keeps the schedule', async () => {
    const { wall, iso } = tokyoTomorrowAt(8);
    const article = sampleArticle({ status: 'scheduled', publishAt: iso });
    const { requests } = stubFetch({
      [`GET /api/admin/articles/${article.id}`]: { body: article },
      [`GET /api/admin/articles/${article.id}/preview-links`]: { body: { links: [] } },
      [`GET /api/admin/articles/${article.id}/revisions`]: { body: { revisions: [] } },
      [`PATCH /api/articles/${article.id}`]: { body: article },
    });
    renderWithProviders(
      <Routes>
        <Route path="/admin/articles/:id/edit" element={<EditArticlePage />} />
        <Route path="*" element={null} />
      </Routes>,
      { auth: ADMIN, path: `/admin/articles/${article.id}/edit` },
    );
    expect(await screen.findByLabelText('Schedule for (Asia/Tokyo)')).toHaveValue(wall);
    expect(toggle()).toHaveAttribute('aria-checked', 'false');
    set('Title', 'Automating invoices, scheduled');
    await userEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    await vi.waitFor(() => expect(requests.some((r) => r.method === 'PATCH')).toBe(true));
    expect(requests.find((r) => r.method === 'PATCH')!.body).toMatchObject({ title: 'Automating invoices, scheduled', published: false, publishAt: iso });
  });
});
