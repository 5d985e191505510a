import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import TokensPage from './TokensPage';
import { connection } from '../test/fixtures';
import { setup } from '../test/harness';

const token = (over: Record<string, unknown> = {}) => ({
  __typename: 'APIToken',
  id: 'tok1',
  name: 'grafana',
  prefix: 'chkt_ab12',
  scope: 'read',
  createdAt: '2026-11-29T10:00:00Z',
  lastUsedAt: null,
  expiresAt: null,
  revokedAt: null,
  owner: { __typename: 'User', id: 'u1', login: 'octo' },
  ...over,
});

describe('TokensPage', () => {
  it('shows the empty state', async () => {
    setup(<TokensPage />, { handlers: { TokensPage: () => ({ data: { apiTokens: connection('APIToken', []) } }) } });
    expect(await screen.findByText('No API tokens')).toBeTruthy();
  });

  it('shows a new token once, then only its prefix', async () => {
    let created = false;
    const secret = 'chkt_ab12_SECRETSECRETSECRET';
    const t = setup(<TokensPage />, {
      handlers: {
        TokensPage: () => ({ data: { apiTokens: connection('APIToken', created ? [token({ name: 'ci', scope: 'write' })] : []) } }),
        CreateAPIToken: (v) => {
          created = true;
          return { data: { createAPIToken: { __typename: 'CreateAPITokenPayload', token: secret, apiToken: token({ name: v.input.name, scope: v.input.scope }) } } };
        },
      },
    });
    await screen.findByText('No API tokens');
    await userEvent.type(screen.getByLabelText('Name'), 'ci');
    await userEvent.selectOptions(screen.getByLabelText('Scope'), 'write');
    await userEvent.click(screen.getByRole('button', { name: 'Create token' }));

    const dialog = await screen.findByRole('dialog', { name: 'Your new API token' });
    expect((within(dialog).getByLabelText('API token') as HTMLInputElement).value).toBe(secret);
    expect(dialog.textContent).toMatch(/will not be shown again/);
    expect(t.callsOf('CreateAPIToken')[0].variables).toEqual({ input: { name: 'ci', scope: 'write' } });

    await userEvent.click(within(dialog).getByRole('button', { name: 'Done' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(document.body.innerHTML).not.toContain(secret);
    expect(await screen.findByText('chkt_ab12…')).toBeTruthy();
    // The form is cleared for the next token.
    expect((screen.getByLabelText('Name') as HTMLInputElement).value).toBe('');
  });

  it('revokes after confirmation and shows refusals', async () => {
    const t = setup(<TokensPage />, {
      handlers: {
        TokensPage: () => ({ data: { apiTokens: connection('APIToken', [token()]) } }),
        RevokeAPIToken: () => ({ errors: [{ message: 'That token is not yours.', extensions: { code: 'FORBIDDEN' } }] }),
      },
    });
    await screen.findByText('grafana');
    window.confirm = () => true;
    await userEvent.click(screen.getByRole('button', { name: 'Revoke' }));
    expect((await screen.findByRole('alert')).textContent).toMatch('That token is not yours.');
    expect(t.callsOf('RevokeAPIToken')[0].variables).toEqual({ id: 'tok1' });
  });

  it('shows revoked tokens without a Revoke button', async () => {
    setup(<TokensPage />, { handlers: { TokensPage: () => ({ data: { apiTokens: connection('APIToken', [token({ revokedAt: '2026-11-29T11:00:00Z' })]) } }) } });
    expect(await screen.findByText('revoked')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Revoke' })).toBeNull();
  });
});
