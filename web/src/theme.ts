import { createTheme, type CSSVariablesResolver } from '@mantine/core';

/**
 * WCAG AA (4.5:1) for text, buttons, links and badges on white: the primary colour's filled
 * shade is 8 (Mantine's default 6 is 3.5:1 under white text), and dimmed text is gray 7.
 */
export const theme = createTheme({
  primaryColor: 'blue',
  primaryShade: { light: 8, dark: 8 },
  autoContrast: true,
});

export const cssVariablesResolver: CSSVariablesResolver = (t) => ({
  variables: {},
  light: {
    '--mantine-color-dimmed': t.colors.gray[7],
    '--mantine-color-placeholder': t.colors.gray[7],
  },
  dark: {},
});
