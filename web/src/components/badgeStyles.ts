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

/**
 * The same free-form value in a table cell. `break-word` alone leaves the cell as wide as the
 * unbroken value (table layout sizes columns by their longest word), so the table ran off the
 * page and the columns after it out of view. A max-width caps what the cell asks of the table:
 * the value wraps inside it and ordinary words stay whole.
 */
export const wrapInCell = { overflowWrap: 'break-word', maxWidth: '20rem' } as const;
