import { useEffect } from 'react';

/**
 * react-admin 5.15's Datagrid puts the row checkbox's aria-label ('Select this row') on MUI's
 * root <span> instead of the <input> (MUI 7+ moved input props to slotProps; the select-all
 * checkbox was updated, the row one was not). Screen readers then announce an unlabelled
 * checkbox and axe reports "label" and "aria-prohibited-attr". Until react-admin passes it as
 * slotProps.input, move the label onto the input.
 */
export function useRowCheckboxLabels(): void {
  useEffect(() => {
    const fix = () => {
      document.querySelectorAll<HTMLElement>('.select-item[aria-label]').forEach((span) => {
        const input = span.querySelector('input');
        if (input) input.setAttribute('aria-label', span.getAttribute('aria-label')!);
        span.removeAttribute('aria-label');
      });
    };
    fix();
    const observer = new MutationObserver(fix);
    observer.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['aria-label'] });
    return () => observer.disconnect();
  }, []);
}
