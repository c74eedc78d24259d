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
 * The same free-form value (a name, a space's path) in a table cell. `break-word` leaves the
 * cell as wide as the unbroken value (table layout sizes columns by their longest word), and a
 * max-width alone caps one such column but not two or three in a row: the table ran off the
 * page at 1280 px, its last columns out of view. `anywhere` lets the table narrow the column
 * until the value wraps; the min-width keeps it wide enough that an ordinary word (up to 8rem)
 * is never split, even in a table squeezed onto a phone.
 */
export const wrapInCell = {
  overflowWrap: 'anywhere',
  minWidth: '8rem',
  maxWidth: '20rem',
} as const;

/**
 * An alert whose words carry such a value (a 60-character serial in "the key of … is shown"):
 * the alert's body is a flex item, as wide as its longest word unless let shrink, and the alert
 * cut the rest of its text off at its edge. Its message wraps inside it instead.
 */
export const wrappingAlert = { body: { minWidth: 0 }, message: wrapAnywhere } as const;
