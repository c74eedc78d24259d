import {
  createTheme,
  darken,
  mergeThemeOverrides,
  defaultVariantColorsResolver,
  parseThemeColor,
  type CSSVariablesResolver,
  type VariantColorsResolver,
} from '@mantine/core';

/** Variants whose text is drawn in the colour itself on white or a pale tint. */
const TINTED = new Set(['light', 'subtle', 'outline', 'dot', 'transparent']);

/**
 * WCAG AA (4.5:1): Mantine's default shade 6 text on white or on its own light tint is about
 * 3:1, so tinted variants (light badges, the active nav link, outline buttons) draw text in
 * shade 9 instead.
 */
const variantColorResolver: VariantColorsResolver = (input) => {
  const base = defaultVariantColorsResolver(input);
  if (!TINTED.has(input.variant)) return base;
  const parsed = parseThemeColor({
    color: input.color ?? input.theme.primaryColor,
    theme: input.theme,
  });
  if (!parsed.isThemeColor || parsed.color === undefined) return base;
  const dark = input.theme.colors[parsed.color]?.[9];
  if (dark === undefined) return base;
  const text = darken(dark, 0.3);
  return { ...base, color: text, hoverColor: text };
};

/**
 * The primary colour's filled shade is 8 (shade 6 under white text is 3.5:1), dimmed text is
 * gray 7, tinted variants use shade 9; animations follow the user's reduced-motion setting.
 */
export const theme = createTheme({
  primaryColor: 'blue',
  primaryShade: { light: 8, dark: 8 },
  autoContrast: true,
  respectReducedMotion: true,
  variantColorResolver,
  components: {
    // Title rows (a heading and the page's actions) wrap on a phone instead of squeezing the
    // heading into half the width.
    // Plain objects, not `Group.extend(…)`: importing a component here would put it (a menu and
    // a dialog pull in their popover and scroll-lock code) into the sign-in page's first load.
    Group: { defaultProps: { preventGrowOverflow: false } },
    // A badge is never cut short: in a table squeezed onto a phone its label would otherwise
    // shrink to an ellipsis (the table scrolls inside its card instead).
    Badge: { styles: { root: { minWidth: 'max-content' } } },
    // Mantine's focus placeholder is a `presentation` child with a tabindex inside role=menu,
    // which a menu may not hold (axe: aria-required-children, critical). Without it the first
    // item takes the focus, as the WAI-ARIA menu pattern has it.
    Menu: { defaultProps: { withInitialFocusPlaceholder: false } },
    // A table that scrolls sideways on a phone can be scrolled from the keyboard too (and axe's
    // scrollable-region-focusable holds for tables without a link or button).
    // A column header's Chinese term stays on one line ("最近签到", not "最近签" over "到"):
    // keep-all breaks CJK text only where a space or punctuation is, as Latin text breaks.
    Table: { styles: { th: { wordBreak: 'keep-all' } } },
    TableScrollContainer: {
      defaultProps: { scrollAreaProps: { viewportProps: { tabIndex: 0 } } },
    },
  },
});

/**
 * The theme with the words Mantine draws itself in the site's language: a dialog's × is named
 * (its icon alone says nothing to assistive technology).
 */
export function localizedTheme(closeLabel: string) {
  return mergeThemeOverrides(theme, {
    components: {
      Modal: { defaultProps: { closeButtonProps: { 'aria-label': closeLabel } } },
    },
  });
}

/** Light-variant text (badges, the active nav link) in shade 9 of every colour. */
export const cssVariablesResolver: CSSVariablesResolver = (t) => {
  const light: Record<string, string> = {
    '--mantine-color-dimmed': t.colors.gray[7],
    '--mantine-color-placeholder': t.colors.gray[7],
    // Field errors (red 6 by default) are 3.3:1 on white; shade 9 reads at 5:1 and more.
    ...(t.colors.red?.[9] !== undefined && { '--mantine-color-error': t.colors.red[9] }),
  };
  for (const [name, shades] of Object.entries(t.colors)) {
    const dark = shades[9];
    // Shade 9 alone is not enough for green, orange and yellow on their pale tints.
    if (dark !== undefined) light[`--mantine-color-${name}-light-color`] = darken(dark, 0.3);
    // Hovered light items keep a pale background under that text.
    const pale = shades[1];
    if (pale !== undefined) light[`--mantine-color-${name}-light-hover`] = pale;
  }
  const primary = t.colors[t.primaryColor]?.[9];
  if (primary !== undefined) light['--mantine-primary-color-light-color'] = darken(primary, 0.3);
  return { variables: {}, light, dark: {} };
};
