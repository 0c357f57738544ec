import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { never, stubFetch } from '../../../test/fetch-stub.ts';
import { renderWithProviders } from '../../../test/render.tsx';
import { LandingPage } from './landing-page.tsx';

function renderLanding() {
  stubFetch({ 'GET /api/articles?limit=3': () => never() });
  return renderWithProviders(<LandingPage />);
}

describe('LandingPage', () => {
  it('has the four sections in order, one h1, and section anchors', () => {
    const { container } = renderLanding();
    expect(screen.getAllByRole('heading', { level: 1 }).map((h) => h.textContent)).toEqual(['Automate Your Business Success']);
    const sections = [...container.querySelectorAll('section')].map((s) => s.id || 'hero');
    expect(sections).toEqual(['hero', 'services', 'insights', 'contact']);
  });

  it('hero: headline, explanatory paragraph, an analytics image in AVIF/WebP at 1x/2x, and no actions', () => {
    renderLanding();
    const hero = screen.getByRole('region', { name: 'Automate Your Business Success' });
    expect(hero).toHaveTextContent(/workflow automation .* data analytics, machine learning and AI/);

    const image = within(hero).getByRole('img', { name: /analytics dashboard/i });
    expect(image).toHaveAttribute('width', '640');
    expect(image).toHaveAttribute('height', '480');
    expect(image).toHaveAttribute('fetchpriority', 'high');
    expect(image).toHaveAttribute('decoding', 'async');
    const sources = [...hero.querySelectorAll('source')].map((s) => [s.getAttribute('type'), s.getAttribute('srcset')]);
    expect(sources).toEqual([
      ['image/avif', '/images/hero-analytics-640.avif 1x, /images/hero-analytics-1280.avif 2x'],
      ['image/webp', '/images/hero-analytics-640.webp 1x, /images/hero-analytics-1280.webp 2x'],
    ]);

    expect(within(hero).queryByRole('button')).not.toBeInTheDocument();
    expect(within(hero).queryByRole('link')).not.toBeInTheDocument();
  });

  it('services: three cards, each with an icon, a title and a description', () => {
    renderLanding();
    const services = screen.getByRole('region', { name: 'Our Services' });
    const cards = within(services).getAllByRole('listitem');
    expect(cards.map((card) => within(card).getByRole('heading', { level: 3 }).textContent)).toEqual([
      'Intelligent Process Automation',
      'AI/Machine Learning Solutions',
      'Data Analytics Integration',
    ]);
    for (const card of cards) {
      expect(card.querySelector('svg[aria-hidden="true"]')).not.toBeNull();
      expect(card.querySelector('p')?.textContent?.length).toBeGreaterThan(60);
    }
  });

  it('contact: heading, invitation and a mailto link to the contact address', () => {
    renderLanding();
    const contact = screen.getByRole('region', { name: 'Contact Us' });
    expect(contact).toHaveTextContent(/tell us about your workflows/i);
    const mail = within(contact).getByRole('link', { name: 'hello@axiom-automation.com' });
    expect(mail).toHaveAttribute('href', 'mailto:hello@axiom-automation.com');
  });
});
