const IMAGE = '/images/hero-analytics';

/** SPEC: headline, an explanatory paragraph and a data-analytics image; no actions. The image
 * is the likely largest paint, so it is fetched with high priority and has a fixed size. */
export function HeroSection() {
  return (
    <section aria-labelledby="hero-title" className="bg-brand-50">
      <div className="mx-auto grid max-w-7xl items-center gap-10 px-4 py-14 sm:px-6 md:py-20 lg:grid-cols-2 lg:px-8">
        <div>
          <h1 id="hero-title" className="text-4xl font-extrabold tracking-tight text-slate-900 sm:text-5xl lg:text-6xl">
            Automate Your Business Success
          </h1>
          <p className="mt-6 max-w-xl text-lg leading-relaxed text-slate-700">
            We build intelligent workflow automation on a foundation of data analytics, machine learning and AI. Your
            repetitive processes run on their own, your data turns into forecasts and alerts, and your team gets back the
            hours it spends on manual work, with every decision backed by live numbers.
          </p>
        </div>
        <picture>
          <source type="image/avif" srcSet={`${IMAGE}-640.avif 1x, ${IMAGE}-1280.avif 2x`} />
          <source type="image/webp" srcSet={`${IMAGE}-640.webp 1x, ${IMAGE}-1280.webp 2x`} />
          <img
            src={`${IMAGE}.svg`}
            alt="Analytics dashboard with KPI tiles, a rising line chart, a donut chart and bar charts"
            width={640}
            height={480}
            fetchPriority="high"
            decoding="async"
            className="mx-auto h-auto w-full max-w-xl"
          />
        </picture>
      </div>
    </section>
  );
}
