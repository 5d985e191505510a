// Who is signed in, shared with every page.
import { createContext, useContext } from 'react';
import type { Api, Me } from './api';

export interface ViewerInfo {
  login: string;
  name: string;
  avatarURL: string;
  isAdmin: boolean;
  canWrite: boolean;
}

export interface Session {
  viewer: ViewerInfo;
  me: Me;
  api: Api;
}

export const SessionContext = createContext<Session | null>(null);

/** The signed-in viewer; pages render only inside a signed-in session. */
export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside a signed-in session');
  return s;
}

/** Where the GitHub login starts, returning to the current page after. */
export function loginURL(returnTo: string): string {
  return '/auth/login?return_to=' + encodeURIComponent(returnTo);
}
