import { startTransition } from 'react';
import { hydrateRoot } from 'react-dom/client';
import { AppRoot } from './app/app-root.tsx';
import { LandingRoot, type LoadApp } from './app/landing-app.tsx';
import './styles.css';

// The entry of `/` (landing.html): hydrates the prerendered landing page. The rest of the app
// (router, query cache, every other screen) is a separate chunk, loaded only when the visitor
// goes further or is signed in.
const loadApp: LoadApp = async (user) => {
  const { App } = await import('./app/app.tsx');
  return <App user={user} />;
};

// As a transition, hydration yields to the browser every few milliseconds instead of holding
// the main thread for the whole page (what the page already shows needs none of it to paint).
startTransition(() => {
  hydrateRoot(
    document.getElementById('root')!,
    <AppRoot>
      <LandingRoot location="/" loadApp={loadApp} />
    </AppRoot>,
  );
});
