import { render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { never, stubFetch } from '../test/fetch-stub.ts';
import { useJson } from './use-json.ts';

function Probe({ url }: { url: string }) {
  const state = useJson<{ n: number }>(url);
  return <p>{state.status === 'success' ? `n=${state.data.n}` : state.status}</p>;
}

describe('useJson', () => {
  it('is pending, then has the answer', async () => {
    stubFetch({ 'GET /a': { body: { n: 1 } } });
    render(<Probe url="/a" />);
    expect(screen.getByText('pending')).toBeInTheDocument();
    expect(await screen.findByText('n=1')).toBeInTheDocument();
  });

  it('is an error when the request fails', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    stubFetch({ 'GET /a': { status: 500, body: { error: 'boom' } } });
    render(<Probe url="/a" />);
    expect(await screen.findByText('error')).toBeInTheDocument();
  });

  it('never shows the previous URL’s answer for a new URL', async () => {
    stubFetch({ 'GET /a': { body: { n: 1 } }, 'GET /b': () => never() });
    const { rerender } = render(<Probe url="/a" />);
    await screen.findByText('n=1');
    rerender(<Probe url="/b" />);
    expect(screen.getByText('pending')).toBeInTheDocument();
  });
});
