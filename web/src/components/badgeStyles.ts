/**
 * A badge that carries a value (an address, a time): its whole text, as written (a URL is not
 * upper-cased), wrapping onto more lines rather than cut short or overlapping.
 */
export const wholeTextBadge = {
  root: { height: 'auto', minWidth: 0, maxWidth: '100%', paddingBlock: 2 },
  label: { whiteSpace: 'normal', overflowWrap: 'anywhere', textTransform: 'none' },
} as const;

/**
 * A free-form value (a 128-character name, a 64-character ID number) breaks anywhere when it
 * has no space to break at, inside its own cell or card, instead of running over its neighbour.
 * Only on such values: on every cell it would let tables squeeze ordinary words apart.
 */
export const wrapAnywhere = { overflowWrap: 'anywhere' } as const;
