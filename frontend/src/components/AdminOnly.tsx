// Controls only admins see (the API refuses them for others anyway).
import type { ReactNode } from 'react';
import { useSession } from '../lib/session';

export function AdminOnly({ children }: { children: ReactNode }) {
  const { viewer } = useSession();
  return viewer.isAdmin ? <>{children}</> : null;
}

/** Controls for viewers who may write (sessions and write-scoped tokens). */
export function WriterOnly({ children }: { children: ReactNode }) {
  const { viewer } = useSession();
  return viewer.canWrite ? <>{children}</> : null;
}
