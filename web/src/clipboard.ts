/** `copied`: on the clipboard; `by-hand`: the text is left selected for the person to copy. */
export type CopyOutcome = 'copied' | 'by-hand';

function selectContents(element: HTMLElement): boolean {
  const selection = window.getSelection();
  if (selection === null) return false;
  const range = document.createRange();
  range.selectNodeContents(element);
  selection.removeAllRanges();
  selection.addRange(range);
  return true;
}

/**
 * Copies `text`, shown in `element`. `navigator.clipboard` exists only in a secure context, and
 * the site is normally opened over plain HTTP on a LAN address, so without it the shown text is
 * selected and copied the older way; where even that is refused, it stays selected.
 */
export async function copyText(text: string, element: HTMLElement): Promise<CopyOutcome> {
  if (window.isSecureContext && typeof navigator.clipboard?.writeText === 'function') {
    try {
      await navigator.clipboard.writeText(text);
      return 'copied';
    } catch {
      // Refused (no permission, page not focused): the older way below.
    }
  }
  if (!selectContents(element)) return 'by-hand';
  let copied: boolean;
  try {
    // Deprecated, yet the only way to copy outside a secure context.
    copied = document.execCommand('copy');
  } catch {
    copied = false;
  }
  if (copied && window.getSelection()?.toString().trim() === text.trim()) {
    window.getSelection()?.removeAllRanges();
    return 'copied';
  }
  return 'by-hand';
}
