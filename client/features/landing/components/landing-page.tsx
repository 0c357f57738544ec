import { ContactSection } from './contact-section.tsx';
import { HeroSection } from './hero-section.tsx';
import { InsightsSection } from './insights-section.tsx';
import { ServicesSection } from './services-section.tsx';

/** The public landing page (/): SPEC's four sections in order. Its title is index.html's (other
 * pages put it back when they unmount). */
export function LandingPage() {
  return (
    <>
      <HeroSection />
      <ServicesSection />
      <InsightsSection />
      <ContactSection />
    </>
  );
}
