import { Component, type ReactNode } from 'react';

/** Catches a screen's render error so that the error page shows instead (docs/product.md section 2). */
export class ErrorBoundary extends Component<{ fallback: ReactNode; children: ReactNode }, { error: Error | null }> {
  override state = { error: null as Error | null };
  static getDerivedStateFromError(error: Error) {
    return { error };
  }
  override componentDidCatch(error: Error) {
    console.error('Route error', error);
  }
  override render() {
    return this.state.error ? this.props.fallback : this.props.children;
  }
}
