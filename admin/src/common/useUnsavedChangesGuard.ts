import { useEffect } from 'react';
import { useTranslate } from 'react-admin';

/**
 * Unsaved changes are not lost silently. react-admin's `warnWhenUnsavedChanges` blocks navigation
 * with react-router's useBlocker, which needs a data router; the console runs in a BrowserRouter
 * (App.tsx), where react-admin turns it off. So, while `dirty`: closing or reloading the tab asks
 * the browser's own question, and following a link to another page of the console (the menu, the
 * breadcrumbs) asks react-admin's "unsaved changes" question first and stays when answered no.
 * (The browser's Back button is not asked about: without a data router it cannot be held.)
 */
export function useUnsavedChangesGuard(dirty: boolean) {
  const translate = useTranslate();
  useEffect(() => {
    if (!dirty) return;
    const beforeUnload = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      // Older Chromium asks only when returnValue is set.
      e.returnValue = true;
    };
    // Capture phase on the document: before react-router's Link handles the click on the React root.
    const onClick = (e: MouseEvent) => {
      if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      const link = (e.target as Element | null)?.closest?.('a[href]') as HTMLAnchorElement | null;
      if (!link || link.target === '_blank' || link.hasAttribute('download')) return;
      const to = new URL(link.href, window.location.href);
      if (to.origin !== window.location.origin || to.pathname === window.location.pathname) return;
      if (!window.confirm(translate('ra.message.unsaved_changes'))) {
        e.preventDefault();
        e.stopPropagation();
      }
    };
    window.addEventListener('beforeunload', beforeUnload);
    document.addEventListener('click', onClick, true);
    return () => {
      window.removeEventListener('beforeunload', beforeUnload);
      document.removeEventListener('click', onClick, true);
    };
  }, [dirty, translate]);
}
