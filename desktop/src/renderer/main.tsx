import '@mantine/core/styles.css';
import { MantineProvider, createTheme } from '@mantine/core';
import { MutationCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.js';
import { startLanguage } from './i18n.js';

// The shell puts a fresh nonce here for each page; Mantine's style tag carries it (strict CSP).
const nonce = document.querySelector('meta[name="csp-nonce"]')?.getAttribute('content') ?? '';
// Darker shades than Mantine's defaults: text on buttons and badges meets WCAG AA contrast.
const theme = createTheme({ primaryColor: 'blue', primaryShade: 8, autoContrast: true });
const queryClient: QueryClient = new QueryClient({
  defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } },
  // Each action the technician takes refreshes the live header at once.
  mutationCache: new MutationCache({
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['central'] }),
  }),
});

// The language first (the technician's kept choice, else the system's), so that the first
// paint and the core's first sentences are in it.
await startLanguage();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <MantineProvider theme={theme} getStyleNonce={() => nonce}>
      <QueryClientProvider client={queryClient}>
        <App />
      </QueryClientProvider>
    </MantineProvider>
  </StrictMode>,
);
