import { screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Route, Routes } from 'react-router';
import { stubFetch } from '../../../test/fetch-stub.ts';
import { renderWithProviders } from '../../../test/render.tsx';
import { sampleArticle } from '../../../test/sample-article.ts';
import { setSettingsTimeZone } from '../../../lib/time-zone.ts';
import PreviewPage from './preview-page.tsx';

/** /preview/:token, opened signed out (issue 34 item 2, docs/decisions/0098). */
const TOKEN = 'P'.repeat(43);
const { authorId: _a, published: _p, updatedAt: _u, ...ARTICLE } = sampleArticle({ title: 'The draft to share', content: '## Shared\n\nA **draft** <script>alert(1)</script> body.' });
const renderAt = () =>
  renderWithProviders(
    <Routes>
      <Route path="/preview/:token" element={<PreviewPage />} />
    </Routes>,
    { path: `/preview/${TOKEN}` },
  );

beforeEach(() => setSettingsTimeZone('UTC'));
afterEach(() => setSettingsTimeZone(null));

describe('preview page', () => {
  it('shows the draft under a Preview banner, rendered as the article page renders it, and asks not to be indexed', async () => {
    stubFetch({ [`GET /api/preview/${TOKEN}`]: { body: { ...ARTICLE, status: 'scheduled', publishAt: '2026-12-01T09:00:00.000Z' } } });
    renderAt();
    expect(await screen.findByRole('heading', { level: 1, name: 'The draft to share' })).toBeInTheDocument();
    const banner = screen.getByRole('complementary', { name: 'Preview' });
    expect(banner).toHaveTextContent('Preview: this article is not published yet');
    expect(banner).toHaveTextContent('It is scheduled to appear on the website on Dec 1, 2026 09:00 UTC.');
    expect(screen.getByRole('heading', { level: 2, name: 'Shared' })).toBeInTheDocument();
    expect(document.querySelector('script')).toBeNull();
    expect(document.head.querySelector('meta[name="robots"]')).toHaveAttribute('content', 'noindex, nofollow');
  });

  it('says plainly when the link expired or was revoked', async () => {
    stubFetch({ [`GET /api/preview/${TOKEN}`]: { status: 404, body: { error: 'Not Found', message: 'This preview link has expired or was revoked. Ask for a new one.' } } });
    renderAt();
    expect(await screen.findByRole('heading', { name: 'Preview link not working' })).toBeInTheDocument();
    expect(screen.getByText('This preview link has expired or was revoked. Ask for a new one.')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'See the published insights' })).toHaveAttribute('href', '/insights');
    expect(document.head.querySelector('meta[name="robots"]')).toHaveAttribute('content', 'noindex, nofollow');
  });
});
