import { wrapInCell } from './badgeStyles';

/**
 * Up to this many characters a serial fits a cell on one line (about 16rem), and stays there.
 */
const ONE_LINE = 32;

/**
 * A device serial number, kept on one line: "SIM-AB12-CD34" never breaks at its hyphens (at
 * 390 px a wrapped serial reads as two). Its table scrolls sideways instead. A longer one (the
 * schema allows 64 characters, none of them a space) cannot be read on one line anyway: kept
 * there, it pushed its table, a dialog or the page past the window, so it wraps like a name
 * does (`wrapInCell`'s `anywhere`; put `wrapInCell` on its cell too).
 */
export function Serial({ sn }: { sn: string }) {
  const style =
    sn.length <= ONE_LINE
      ? { whiteSpace: 'nowrap' as const }
      : { overflowWrap: wrapInCell.overflowWrap };
  return (
    <span data-testid="serial" style={{ ...style, fontVariantNumeric: 'tabular-nums' }}>
      {sn}
    </span>
  );
}
