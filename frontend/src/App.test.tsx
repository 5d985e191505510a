import { describe, expect, it, vi } from 'vitest';
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { App } from './App';
import { createApi, type Me } from './lib/api';

function backend(viewer: unknown, seen: { url: string; method: string; csrf: string | null; body: string }[] = []) {
  return createApi({
    fetch: async (input, init) => {
      seen.push({ url: String(input), method: init?.method ?? 'GET', csrf: new Headers(init?.headers).get('X-CSRF-Token'), body: String(init?.body ?? '') });
      if (String(input) === '/auth/sandbox') return Response.json({ ok: true, returnTo: '/runs' });
      const op = JSON.parse(String(init?.body ?? '{}')).operationName;
      if (op === 'Viewer') return Response.json({ data: { viewer, githubWebURL: viewer ? 'https://ghe.example' : null } });
      return Response.json({ data: null, errors: [{ message: 'not in this test' }] });
    },
  });
}

const me = (over: Partial<Me> = {}): Me => ({ csrfToken: 'csrf1', sandbox: true, sandboxUsers: [], github: false, authenticated: false, ...over });

describe('App', () => {
  it('shows the sign-in page to anonymous visitors, with the logins on offer', async () => {
    render(<App api={backend(null)} me={me()} />);
    expect(await screen.findByRole('button', { name: 'Sign in to the sandbox' })).toBeTruthy();
    expect(screen.queryByRole('link', { name: 'Sign in with GitHub' })).toBeNull();
  });

  it('offers GitHub login with a return address', async () => {
    window.history.pushState({}, '', '/runs/abc?x=1');
    render(<App api={backend(null)} me={me({ sandbox: false, github: true })} />);
    const link = await screen.findByRole('link', { name: 'Sign in with GitHub' });
    expect(link.getAttribute('href')).toBe('/auth/login?return_to=%2Fruns%2Fabc%3Fx%3D1');
    expect(screen.queryByRole('button', { name: 'Sign in to the sandbox' })).toBeNull();
    window.history.pushState({}, '', '/');
  });

  it('signs in to the sandbox with a CSRF-protected POST', async () => {
    const seen: { url: string; method: string; csrf: string | null; body: string }[] = [];
    const api = backend(null, seen);
    await api.loadMe().catch(() => undefined);
    const assigned: string[] = [];
    const orig = window.location.assign;
    Object.defineProperty(window.location, 'assign', { configurable: true, value: (u: string) => assigned.push(u) });
    render(<App api={api} me={me({ csrfToken: '' })} />);
    await userEvent.click(await screen.findByRole('button', { name: 'Sign in to the sandbox' }));
    await waitFor(() => expect(assigned).toEqual(['/runs']));
    const post = seen.find((s) => s.url === '/auth/sandbox')!;
    expect(post.method).toBe('POST');
    expect(post.body).toContain('return_to=');
    Object.defineProperty(window.location, 'assign', { configurable: true, value: orig });
  });

  it('offers each sandbox user the server names, and signs in as the one chosen', async () => {
    const seen: { url: string; method: string; csrf: string | null; body: string }[] = [];
    const assigned: string[] = [];
    const orig = window.location.assign;
    Object.defineProperty(window.location, 'assign', { configurable: true, value: (u: string) => assigned.push(u) });
    render(<App api={backend(null, seen)} me={me({ sandboxUsers: ['sandbox-admin', 'sandbox-dev'] })} />);
    const admin = await screen.findByRole('button', { name: 'Sign in as sandbox-admin' });
    expect(admin.getAttribute('aria-describedby')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Sign in to the sandbox' })).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: 'Sign in as sandbox-dev' }));
    await waitFor(() => expect(assigned).toEqual(['/runs']));
    const body = new URLSearchParams(seen.find((s) => s.url === '/auth/sandbox')!.body);
    expect(body.get('login')).toBe('sandbox-dev');
    Object.defineProperty(window.location, 'assign', { configurable: true, value: orig });
  });

  it('shows the signed-in user with the admin badge only for admins', async () => {
    const { unmount } = render(<App api={backend({ __typename: 'Viewer', login: 'octo', name: 'Octo Cat', avatarURL: '', isAdmin: false, canWrite: true })} me={me({ authenticated: true })} />);
    expect(await screen.findByText('Octo Cat')).toBeTruthy();
    expect(screen.queryByText('admin')).toBeNull();
    expect(screen.getByRole('button', { name: 'Sign out' })).toBeTruthy();
    unmount();
    render(<App api={backend({ __typename: 'Viewer', login: 'root', name: 'Root', avatarURL: '', isAdmin: true, canWrite: true })} me={me({ authenticated: true })} />);
    expect(await screen.findByText('admin')).toBeTruthy();
  });

  it('shows the version it was built as in the footer of signed-in pages', async () => {
    vi.stubEnv('VITE_CHAKSHU_VERSION', 'v1.2.3');
    render(<App api={backend({ __typename: 'Viewer', login: 'octo', name: 'Octo Cat', avatarURL: '', isAdmin: false, canWrite: true })} me={me({ authenticated: true })} />);
    expect((await screen.findByRole('contentinfo')).textContent).toBe('Chakshu v1.2.3');
    vi.unstubAllEnvs();
  });
});
