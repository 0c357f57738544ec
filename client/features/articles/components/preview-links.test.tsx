import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TPreviewLink } from '../../../../contracts/articles.ts';
import { jsonResponse, stubFetch } from '../../../test/fetch-stub.ts';
import { renderWithProviders, signedInAs } from '../../../test/render.tsx';
import { sampleArticle } from '../../../test/sample-article.ts';
import { notify } from '../../../lib/notify.ts';
import { setSettingsTimeZone } from '../../../lib/time-zone.ts';
import { PreviewLinks } from './preview-links.tsx';

/** "Share a preview link" under the form (issue 34 item 2, docs/decisions/0098). */
const ADMIN = signedInAs('admin');
const DRAFT = sampleArticle();
const LINKS = `/api/admin/articles/${DRAFT.id}/preview-links`;
const link = (n: number): TPreviewLink => ({
  id: `00000000-0000-4000-8000-00000000000${n}`,
  createdAt: `2026-03-0${n}T10:00:00.000Z`,
  expiresAt: `2026-03-0${n + 3}T10:00:00.000Z`,
  createdBy: { id: 'u1', name: 'Ada' },
});

beforeEach(() => {
  vi.clearAllMocks();
  setSettingsTimeZone('UTC');
});
afterEach(() => setSettingsTimeZone(null));

/** A small fake of the preview links API. */
function stubLinks(initial: TPreviewLink[]) {
  let links = [...initial];
  return stubFetch({}, ({ method, url }) => {
    if (method === 'GET' && url === LINKS) return jsonResponse({ links });
    if (method === 'POST' && url === LINKS) {
      const made = link(3);
      links = [made, ...links];
      return jsonResponse({ ...made, url: 'http://localhost:3000/preview/' + 'T'.repeat(43) }, 201);
    }
    const revoked = links.find((l) => method === 'DELETE' && url === `${LINKS}/${l.id}`);
    if (revoked) {
      links = links.filter((l) => l !== revoked);
      return new Response(null, { status: 204 });
    }
    return undefined;
  });
}

describe('preview links', () => {
  it('creates a link shown once to copy, and lists the working ones with their expiry', async () => {
    const writeText = vi.fn(async () => {});
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    stubLinks([link(1)]);
    renderWithProviders(<PreviewLinks article={DRAFT} />, { auth: ADMIN });
    expect(screen.getByRole('heading', { name: 'Share a preview link' })).toBeInTheDocument();
    const list = await screen.findByRole('list', { name: 'Working preview links' });
    expect(within(list).getAllByRole('listitem')).toHaveLength(1);
    expect(list).toHaveTextContent('Made Mar 1, 2026 10:00 UTC by Ada · expires Mar 4, 2026 10:00 UTC');

    await userEvent.click(screen.getByRole('button', { name: 'Create a preview link' }));
    const field = await screen.findByRole('textbox', { name: 'New preview link (shown this once)' });
    expect(field).toHaveValue(`http://localhost:3000/preview/${'T'.repeat(43)}`);
    await userEvent.click(screen.getByRole('button', { name: 'Copy link' }));
    expect(writeText).toHaveBeenCalledWith(`http://localhost:3000/preview/${'T'.repeat(43)}`);
    expect(notify.success).toHaveBeenCalledWith('Success!', 'Preview link copied');
    await vi.waitFor(() => expect(within(screen.getByRole('list', { name: 'Working preview links' })).getAllByRole('listitem')).toHaveLength(2));
  });

  it('revokes a link at once and drops it from the list (and the new link shown, when it is that one)', async () => {
    const { requests } = stubLinks([link(1)]);
    renderWithProviders(<PreviewLinks article={DRAFT} />, { auth: ADMIN });
    await userEvent.click(await screen.findByRole('button', { name: 'Create a preview link' }));
    await screen.findByRole('textbox', { name: 'New preview link (shown this once)' });
    await userEvent.click(await screen.findByRole('button', { name: 'Revoke the preview link made Mar 3, 2026 10:00 UTC' }));
    await vi.waitFor(() => expect(screen.queryByRole('textbox', { name: 'New preview link (shown this once)' })).not.toBeInTheDocument());
    expect(requests).toContainEqual({ method: 'DELETE', url: `${LINKS}/${link(3).id}`, body: undefined });
    expect(notify.success).toHaveBeenCalledWith('Success!', 'Preview link revoked');
    await userEvent.click(screen.getByRole('button', { name: 'Revoke the preview link made Mar 1, 2026 10:00 UTC' }));
    expect(await screen.findByText('No preview link works now.')).toBeInTheDocument();
  });

  it('offers no link for a published article', () => {
    const { fetchMock } = stubFetch({});
    renderWithProviders(<PreviewLinks article={sampleArticle({ published: true, status: 'published' })} />, { auth: ADMIN });
    expect(screen.getByText('This article is published: share its address instead.')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Create a preview link' })).not.toBeInTheDocument();
    expect(fetchMock).not.toHaveBeenCalled();
  });
});
