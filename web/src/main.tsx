import '@mantine/core/styles.css';

import { MantineProvider, createTheme } from '@mantine/core';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { SessionProvider } from './session';

const theme = createTheme({ primaryColor: 'blue' });

const container = document.getElementById('root');
if (container === null) throw new Error('index.html has no #root element');

createRoot(container).render(
  <StrictMode>
    <MantineProvider theme={theme} defaultColorScheme="light">
      <SessionProvider>
        <App />
      </SessionProvider>
    </MantineProvider>
  </StrictMode>,
);
