import { createContext, useContext, useLayoutEffect } from 'react';

/** A page inside the layout that wants the blank layout (the not-found page) says so here. */
export const BareContext = createContext<(bare: boolean) => void>(() => undefined);

export function useBareLayout() {
  const setBare = useContext(BareContext);
  useLayoutEffect(() => {
    setBare(true);
    return () => setBare(false);
  }, [setBare]);
}
