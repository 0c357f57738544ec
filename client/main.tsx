import { createRoot } from 'react-dom/client';
import { App } from './app/app.tsx';
import { AppRoot } from './app/app-root.tsx';
import './styles.css';

createRoot(document.getElementById('root')!).render(
  <AppRoot>
    <App />
  </AppRoot>,
);
