import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { jsonResponse, stubFetch } from '../../../test/fetch-stub.ts';
import { renderWithProviders, signedInAs } from '../../../test/render.tsx';
import { InviteButton } from './invite-dialog.tsx';

const LINK = `http://localhost:3000/invite#${'a'.repeat(43)}`;

async function openAndSend(email: string, role: 'admin' | 'guest' = 'guest') {
  await userEvent.click(screen.getByRole('button', { name: 'Invite' }));
  const dialog = screen.getByRole('dialog', { name: 'Invite someone' });
  await userEvent.type(within(dialog).getByLabelText('Email'), email);
  await userEvent.selectOptions(within(dialog).getByLabelText('Role'), role);
  await userEvent.click(within(dialog).getByRole('button', { name: 'Send invite' }));
  return dialog;
}

describe('Users → Invite (docs/decisions/0092)', () => {
  it('without email configured, shows the admin the one-time link to pass on', async () => {
    const { requests } = stubFetch({
      'POST /api/invites': () => jsonResponse({ id: 'i1', email: 'pat@example.com', role: 'admin', expiresAt: '2026-12-01T12:00:00.000Z', emailed: false, link: LINK }, 201),
    });
    renderWithProviders(<InviteButton />, { auth: signedInAs('admin') });
    const dialog = await openAndSend('pat@example.com', 'admin');
    expect(await within(dialog).findByLabelText('Invite link')).toHaveValue(LINK);
    expect(within(dialog).getByText(/pass this link on to/)).toHaveTextContent('pat@example.com');
    expect(requests.find((r) => r.method === 'POST')?.body).toEqual({ email: 'pat@example.com', role: 'admin' });
  });

  it('says the invite was emailed, and shows no link', async () => {
    stubFetch({ 'POST /api/invites': () => jsonResponse({ id: 'i1', email: 'pat@example.com', role: 'guest', expiresAt: '2026-12-01T12:00:00.000Z', emailed: true, link: null }, 201) });
    renderWithProviders(<InviteButton />, { auth: signedInAs('admin') });
    const dialog = await openAndSend('pat@example.com');
    expect(await within(dialog).findByRole('status')).toHaveTextContent('Invite emailed to pat@example.com.');
    expect(within(dialog).queryByLabelText('Invite link')).not.toBeInTheDocument();
  });

  it("shows the server's rule under the email it refused, and a conflict above the buttons", async () => {
    stubFetch({
      'POST /api/invites': (request) =>
        (request.body as { email: string }).email === 'taken@example.com'
          ? jsonResponse({ error: 'Conflict', message: 'A user with this email already exists' }, 409)
          : jsonResponse({ error: 'Invalid request', details: [{ path: 'email', message: 'Enter a valid email address' }] }, 400),
    });
    renderWithProviders(<InviteButton />, { auth: signedInAs('admin') });
    const dialog = await openAndSend('not-an-email');
    const email = within(dialog).getByLabelText('Email');
    expect(await within(dialog).findByText('Enter a valid email address')).toBeInTheDocument();
    expect(email).toHaveAttribute('aria-invalid', 'true');
    await userEvent.clear(email);
    await userEvent.type(email, 'taken@example.com');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Send invite' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('A user with this email already exists');
  });
});
