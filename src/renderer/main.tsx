// Entry of the owner UI.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './components/App';
import { startWaitingSignals } from './sync';
import './styles.css';
import './styles-pages.css'; // after styles.css: one cascade, in this order
import './styles-ledger.css'; // the Ledger page

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);

startWaitingSignals(); // the tab's title, favicon and desktop notifications follow what waits for the owner
