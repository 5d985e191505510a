import { useState } from 'react';

/** A user's avatar, falling back to initials when it cannot load. */
export function Avatar({ url, login, size = 28 }: { url: string; login: string; size?: number }) {
  const [failed, setFailed] = useState(false);
  if (!url || failed) {
    return (
      <span className="avatar avatar-initials" aria-hidden="true">
        {login.slice(0, 2).toUpperCase()}
      </span>
    );
  }
  return <img className="avatar" src={url} alt="" width={size} height={size} onError={() => setFailed(true)} referrerPolicy="no-referrer" />;
}
