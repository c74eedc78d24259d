/** Saves text or base64 content as a file through the browser's download. */
export function download(
  filename: string,
  mime: string,
  content: { text: string } | { base64: string },
) {
  const data =
    'text' in content
      ? new TextEncoder().encode(content.text)
      : Uint8Array.from(atob(content.base64), (c) => c.charCodeAt(0));
  const url = URL.createObjectURL(new Blob([data], { type: mime }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
