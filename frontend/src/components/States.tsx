// Loading, empty and error states, the same on every page.
import type { CombinedError } from 'urql';
import type { ReactNode } from 'react';

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className="state state-loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      {label}
    </div>
  );
}

/** The message to show for a failed request: the API's messages are safe. */
export function errorMessage(error: CombinedError | Error | null | undefined): string {
  if (!error) return '';
  const ce = error as CombinedError;
  if (ce.graphQLErrors?.length) {
    const codes = ce.graphQLErrors.map((e) => e.extensions?.code);
    if (codes.includes('UNAUTHENTICATED')) return 'Your session has ended. Sign in again.';
    if (codes.includes('FORBIDDEN')) return ce.graphQLErrors[0].message || 'You do not have access to this.';
    return ce.graphQLErrors.map((e) => e.message).join('; ');
  }
  if (ce.networkError) return 'Chakshu could not be reached. Check your connection and try again.';
  return error.message || 'Something went wrong.';
}

export function ErrorState({ error, retry, title = 'This could not be loaded' }: { error: CombinedError | Error | null | undefined; retry?: () => void; title?: string }) {
  return (
    <div className="state state-error" role="alert">
      <strong>{title}</strong>
      <p>{errorMessage(error)}</p>
      {retry && (
        <button type="button" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="state state-empty">
      <strong>{title}</strong>
      {children && <p>{children}</p>}
    </div>
  );
}

/** An inline error for a failed action (a mutation). */
export function ActionError({ error }: { error: CombinedError | Error | null | undefined }) {
  if (!error) return null;
  return (
    <p className="action-error" role="alert">
      {errorMessage(error)}
    </p>
  );
}
