import type { ReactNode } from 'react';
import { Card } from '../../../components/ui/card.tsx';
import { StrokeIcon } from '../../../components/ui/stroke-icon.tsx';
import { revealStyle, useReveal } from '../hooks/use-reveal.ts';

const SERVICES: { title: string; description: string; icon: ReactNode }[] = [
  {
    title: 'Intelligent Process Automation',
    description:
      'We map your repetitive workflows, from invoicing and onboarding to reporting and approvals, and automate them end to end, so they run around the clock with fewer errors and a full audit trail.',
    icon: (
      <>
        <rect width="8" height="8" x="3" y="3" rx="2" />
        <path d="M7 11v4a2 2 0 0 0 2 2h4" />
        <rect width="8" height="8" x="13" y="13" rx="2" />
      </>
    ),
  },
  {
    title: 'AI/Machine Learning Solutions',
    description:
      'Models trained on your own data forecast demand, score leads, flag anomalies and answer routine questions, and they plug straight into the tools your teams already use.',
    icon: (
      <>
        <path d="M12 8V4H8" />
        <rect width="16" height="12" x="4" y="8" rx="2" />
        <path d="M2 14h2M20 14h2M15 13v2M9 13v2" />
      </>
    ),
  },
  {
    title: 'Data Analytics Integration',
    description:
      'We connect scattered sources into one reliable pipeline with live dashboards and alerts, so every decision rests on current numbers instead of last month’s spreadsheet.',
    icon: <path d="M3 3v16a2 2 0 0 0 2 2h16M18 17V9M13 17V5M8 17v-3" />,
  },
];

export function ServicesSection() {
  const { ref, shown } = useReveal<HTMLUListElement>();
  return (
    <section id="services" tabIndex={-1} aria-labelledby="services-title" className="scroll-mt-16 py-16 focus:outline-none md:py-24">
      <div className="mx-auto max-w-7xl px-4 sm:px-6 lg:px-8">
        <h2 id="services-title" className="text-3xl font-bold tracking-tight text-slate-900">
          Our Services
        </h2>
        <p className="mt-3 max-w-2xl text-lg text-slate-600">Practical automation that pays for itself, built around how your business already works.</p>
        <ul ref={ref} className="mt-10 grid gap-6 md:grid-cols-3">
          {SERVICES.map(({ title, description, icon }, index) => {
            const reveal = revealStyle(shown, index);
            return (
              <Card as="li" key={title} className={`p-6 ${reveal.className}`} style={reveal.style}>
                <span className="inline-flex size-12 items-center justify-center rounded-lg bg-brand-50 text-brand-600">
                  <StrokeIcon>{icon}</StrokeIcon>
                </span>
                <h3 className="mt-4 text-lg font-semibold text-slate-900">{title}</h3>
                <p className="mt-2 text-slate-600">{description}</p>
              </Card>
            );
          })}
        </ul>
      </div>
    </section>
  );
}
