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
  /** GitHub's web base for links the portal builds (the server's configured
   * GitHub: github.com, an Enterprise host, or the sandbox simulator's pages). */
  githubWebURL: string;
}

/** Used only when the server does not say (an older server). */
export const DEFAULT_GITHUB_WEB_URL = 'https://github.com';

/** A link to a commit of a repository on this Chakshu's GitHub. */
export function commitURL(webURL: string, repo: string, sha: string): string {
  return `${webURL.replace(/\/+$/, '')}/${repo}/commit/${sha}`;
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
