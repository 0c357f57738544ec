import { appConfig } from '../../../lib/app-config.ts';
import { revealStyle, useReveal } from '../hooks/use-reveal.ts';

export function ContactSection() {
  const { contactEmail } = appConfig();
  const { ref, shown } = useReveal<HTMLDivElement>();
  const reveal = revealStyle(shown);
  return (
    <section id="contact" tabIndex={-1} aria-labelledby="contact-title" className="scroll-mt-16 py-16 focus:outline-none md:py-24">
      <div ref={ref} className={`mx-auto max-w-3xl px-4 text-center sm:px-6 lg:px-8 ${reveal.className}`}>
        <h2 id="contact-title" className="text-3xl font-bold tracking-tight text-slate-900">
          Contact Us
        </h2>
        <p className="mt-4 text-lg text-slate-600">
          Ready to take repetitive work off your team’s plate? Tell us about your workflows and your data, and we will show
          you where automation and AI can make the biggest difference. Write to us at
        </p>
        <a
          href={`mailto:${contactEmail}`}
          className="mt-4 inline-block rounded-md text-xl font-semibold text-brand-700 underline-offset-4 hover:underline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600"
        >
          {contactEmail}
        </a>
      </div>
    </section>
  );
}
