import { QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.tsx';
import { AuthGate } from './auth/AuthGate.tsx';
import { adoptEarlyFlow } from './lib/preload.ts';
import { queryClient } from './lib/trpc.ts';
import './styles.css';

adoptEarlyFlow();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <AuthGate>
        <App />
      </AuthGate>
    </QueryClientProvider>
  </StrictMode>,
);
