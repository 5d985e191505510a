import { useState } from 'react';

/** Whether the portal's Content-Security-Policy (img-src 'self' data: https:)
 * lets the browser load an image from url; loading a blocked one is a console error. */
export function loadableImage(url: string, origin = window.location.origin): boolean {
  try {
    const u = new URL(url, origin);
    return u.protocol === 'https:' || u.protocol === 'data:' || u.origin === origin;
  } catch {
    return false;
  }
}

/** A user's avatar, falling back to initials when it cannot load (or the CSP
 * would block it: the sandbox simulator serves avatars over plain http). */
export function Avatar({ url, login, size = 28 }: { url: string; login: string; size?: number }) {
  const [failed, setFailed] = useState(false);
  if (!url || failed || !loadableImage(url)) {
    return (
      <span className="avatar avatar-initials" aria-hidden="true">
        {login.slice(0, 2).toUpperCase()}
      </span>
    );
  }
  return <img className="avatar" src={url} alt="" width={size} height={size} onError={() => setFailed(true)} referrerPolicy="no-referrer" />;
}
