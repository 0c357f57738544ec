import { Suspense, type ReactNode } from 'react';
import { FullPageSpinner } from '../components/ui/spinner.tsx';
import { appConfig, copyrightYear } from '../lib/app-config.ts';
import { useNavigation } from '../lib/navigation.ts';
import { ErrorBoundary } from './error-boundary.tsx';
import { Header } from './header.tsx';

/** Every page: skip link, header, the screen (its failures and lazy loading contained so the
 * header stays), footer. */
export function PageLayout({ children }: { children: ReactNode }) {
  const { pathname } = useNavigation();
  return (
    <div className="flex min-h-dvh flex-col bg-white text-slate-900">
      <a
        href="#main"
        onClick={(event) => {
          // Focus the content without changing the URL (the router owns it).
          event.preventDefault();
          document.getElementById('main')?.focus();
        }}
        className="skip-link"
      >
        Skip to content
      </a>
      <Header />
      <main id="main" tabIndex={-1} className="flex-1 focus:outline-none">
        <ErrorBoundary resetKey={pathname}>
          <Suspense fallback={<FullPageSpinner />}>
            {children}
          </Suspense>
        </ErrorBoundary>
      </main>
      <footer className="border-t border-slate-200 bg-slate-50">
        <p className="mx-auto max-w-7xl px-4 py-6 text-sm text-slate-600 sm:px-6 lg:px-8">
          {`© ${copyrightYear()} ${appConfig().siteName}. All rights reserved.`}
        </p>
      </footer>
    </div>
  );
}
