import { useEffect } from 'react';

/** Sets `<title>` to "<page> · svc" while the page is shown. */
export function useDocumentTitle(page: string): void {
  useEffect(() => {
    document.title = `${page} · svc`;
  }, [page]);
}
