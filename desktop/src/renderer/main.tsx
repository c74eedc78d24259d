import '@mantine/core/styles.css';
import { MantineProvider, createTheme } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.js';

// The shell puts a fresh nonce here for each page; Mantine's style tag carries it (strict CSP).
const nonce = document.querySelector('meta[name="csp-nonce"]')?.getAttribute('content') ?? '';
// Darker shades than Mantine's defaults: text on buttons and badges meets WCAG AA contrast.
const theme = createTheme({ primaryColor: 'blue', primaryShade: 8, autoContrast: true });
const queryClient = new QueryClient({
  defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } },
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <MantineProvider theme={theme} getStyleNonce={() => nonce}>
      <QueryClientProvider client={queryClient}>
        <App />
      </QueryClientProvider>
    </MantineProvider>
  </StrictMode>,
);
