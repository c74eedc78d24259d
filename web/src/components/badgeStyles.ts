/**
 * A badge that carries a value (an address, a time): its whole text, as written (a URL is not
 * upper-cased), wrapping onto more lines rather than cut short or overlapping.
 */
export const wholeTextBadge = {
  root: { height: 'auto', minWidth: 0, maxWidth: '100%', paddingBlock: 2 },
  label: { whiteSpace: 'normal', overflowWrap: 'break-word', textTransform: 'none' },
} as const;

/**
 * A free-form value (a 128-character name, a 64-character ID number) breaks inside a word only
 * when that word alone is longer than its line, inside its own cell or card, instead of running
 * over its neighbour. `break-word`, not `anywhere`: with `anywhere` a table squeezed onto a
 * phone splits ordinary words ("Adminis-trator") to make its columns narrower.
 */
export const wrapAnywhere = { overflowWrap: 'break-word', minWidth: 0 } as const;
