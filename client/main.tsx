import { startTransition } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/app.tsx';
import { AppRoot } from './app/app-root.tsx';
import './styles.css';

// As a transition, the first render yields to the browser every few milliseconds rather than
// holding the main thread for the whole screen.
const root = createRoot(document.getElementById('root')!);
startTransition(() => {
  root.render(
    <AppRoot>
      <App />
    </AppRoot>,
  );
});
