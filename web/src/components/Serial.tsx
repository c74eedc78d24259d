/**
 * A device serial number, kept on one line: "SIM-AB12-CD34" never breaks at its hyphens (at
 * 390 px a wrapped serial reads as two). Its table scrolls sideways instead.
 */
export function Serial({ sn }: { sn: string }) {
  return (
    <span data-testid="serial" style={{ whiteSpace: 'nowrap', fontVariantNumeric: 'tabular-nums' }}>
      {sn}
    </span>
  );
}
