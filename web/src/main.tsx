import '@mantine/core/styles.css';

import { MantineProvider } from '@mantine/core';
import { QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from '@tanstack/react-router';
import { StrictMode, useMemo, type ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import { initI18n, useT } from './i18n';
import { queryClient } from './query';
import { router } from './routes';
import { SessionProvider } from './session';
import { cssVariablesResolver, localizedTheme } from './theme';

const container = document.getElementById('root');
if (container === null) throw new Error('index.html has no #root element');
const root = container;

/** Mantine's own words (a dialog's close button) follow the site's language. */
function Theme({ children }: { children: ReactNode }) {
  const t = useT();
  const close = t('common.close');
  const theme = useMemo(() => localizedTheme(close), [close]);
  return (
    <MantineProvider
      theme={theme}
      cssVariablesResolver={cssVariablesResolver}
      defaultColorScheme="light"
    >
      {children}
    </MantineProvider>
  );
}

// The language's catalog is its own chunk: the first render waits for it, never in English first.
void initI18n().then(() => {
  createRoot(root).render(
    <StrictMode>
      <Theme>
        <QueryClientProvider client={queryClient}>
          <SessionProvider>
            <RouterProvider router={router} />
          </SessionProvider>
        </QueryClientProvider>
      </Theme>
    </StrictMode>,
  );
});
