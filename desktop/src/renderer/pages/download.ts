import type { DesktopFiles } from '../../core/ipc.js';

const toBase64 = (text: string) => {
  let binary = '';
  for (const b of new TextEncoder().encode(text)) binary += String.fromCharCode(b);
  return btoa(binary);
};

/**
 * Saves text or base64 content as a file: in Electron through the system's save dialog, in
 * the browser shell through the browser's download. False when the technician cancelled.
 */
export async function download(
  filename: string,
  mime: string,
  content: { text: string } | { base64: string },
): Promise<boolean> {
  const base64 = 'text' in content ? toBase64(content.text) : content.base64;
  // Electron's preload adds the save dialog to the console's API; the browser shell has none.
  const desktop = window.svcConsole as Partial<DesktopFiles> | undefined;
  if (desktop?.saveFile) return desktop.saveFile(filename, base64);
  const data = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  const url = URL.createObjectURL(new Blob([data], { type: mime }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
  return true;
}
