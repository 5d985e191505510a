import { describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import ConnectorsPage from './ConnectorsPage';
import { admin, pending, setup } from '../test/harness';

const cred = (over: Record<string, unknown> = {}) => ({
  __typename: 'ConnectorCredential',
  id: 'cc1',
  connector: 'http',
  name: 'jira',
  createdBy: 'root',
  hosts: ['jira.example.com'],
  createdAt: '2026-11-29T10:00:00Z',
  updatedAt: '2026-11-29T11:00:00Z',
  installation: { __typename: 'Installation', id: 'in1', accountLogin: 'acme' },
  ...over,
});

const answer = (creds: unknown[], installs = [{ __typename: 'Installation', id: 'in1', accountLogin: 'acme' }]) => ({
  data: {
    connectorCredentials: creds,
    status: { __typename: 'SystemStatus', installations: installs },
    reviewers: { __typename: 'ReviewerConnection', edges: [{ __typename: 'ReviewerEdge', node: { __typename: 'Reviewer', id: 'rv1', connectors: ['github', 'sentry'] } }] },
  },
});

describe('ConnectorsPage', () => {
  it('is for admins only: a non-admin gets an explanation and no request is made', async () => {
    const t = setup(<ConnectorsPage />, { handlers: {} });
    expect(await screen.findByText('Admins only')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Save credential' })).toBeNull();
    expect(t.calls).toHaveLength(0);
  });

  it('has loading, error and empty states', async () => {
    const loading = setup(<ConnectorsPage />, { viewer: admin, handlers: { ConnectorsPage: pending } });
    expect(await screen.findByText('Loading credentials…')).toBeTruthy();
    loading.unmount();
    let n = 0;
    const failing = setup(<ConnectorsPage />, {
      viewer: admin,
      handlers: { ConnectorsPage: () => (n++ === 0 ? { errors: [{ message: 'Admins only.', extensions: { code: 'FORBIDDEN' } }] } : answer([])) },
    });
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toMatch('Admins only.');
    await userEvent.click(within(alert).getByRole('button', { name: 'Try again' }));
    expect(await screen.findByText('No credentials yet')).toBeTruthy();
    failing.unmount();
    setup(<ConnectorsPage />, { viewer: admin, handlers: { ConnectorsPage: () => answer([], []) } });
    expect(await screen.findByText('No installations')).toBeTruthy();
  });

  it('lists credentials by name, connector, installation and time, never a value', async () => {
    setup(<ConnectorsPage />, { viewer: admin, handlers: { ConnectorsPage: () => answer([cred(), cred({ id: 'cc2', connector: 'sentry', name: 'sentry-token', hosts: [] })]) } });
    const table = await screen.findByRole('table');
    const rows = within(table).getAllByRole('row');
    expect(rows).toHaveLength(3);
    expect(rows[1].textContent).toContain('jira');
    expect(rows[1].textContent).toContain('http');
    expect(rows[1].textContent).toContain('acme');
    expect(rows[1].textContent).toContain('jira.example.com');
    // A credential without hosts (stored before they existed) is refused, and says so.
    expect(rows[2].textContent).toContain('none: refused');
    expect(within(rows[1]).getByRole('time').getAttribute('datetime')).toBe('2026-11-29T11:00:00Z');
    // Connectors the reviewers use are suggested; github needs no credential.
    const options = [...document.querySelectorAll('#connector-options option')].map((o) => o.getAttribute('value'));
    expect(options).toEqual(['http', 'sentry']);
  });

  it('sets a credential, sends the value once and clears it from the page', async () => {
    let creds = [] as ReturnType<typeof cred>[];
    const t = setup(<ConnectorsPage />, {
      viewer: admin,
      handlers: {
        ConnectorsPage: () => answer(creds),
        SetConnectorCredential: (v) => {
          creds = [cred({ name: v.input.name, connector: v.input.connector, hosts: v.input.hosts })];
          return {
            data: { setConnectorCredential: { __typename: 'ConnectorCredential', id: 'cc1', connector: v.input.connector, name: v.input.name, hosts: v.input.hosts, updatedAt: '2026-11-29T12:00:00Z' } },
          };
        },
      },
    });
    await screen.findByText('No credentials yet');
    const save = screen.getByRole('button', { name: 'Save credential' });
    expect((save as HTMLButtonElement).disabled).toBe(true);
    await userEvent.type(screen.getByLabelText('Name'), 'jira');
    const value = screen.getByLabelText('Value') as HTMLInputElement;
    expect(value.type).toBe('password');
    await userEvent.type(value, 's3cret-value');
    // An http credential needs the hosts it may be sent to.
    expect((save as HTMLButtonElement).disabled).toBe(true);
    await userEvent.type(screen.getByLabelText('Hosts'), 'jira.example.com, jira.example.com:8443');
    await userEvent.click(save);
    expect(await screen.findByRole('status')).toHaveProperty(
      'textContent',
      'Saved jira (http). It is stored encrypted and cannot be read back. It is sent only to jira.example.com, jira.example.com:8443.',
    );
    expect(t.callsOf('SetConnectorCredential')[0].variables).toEqual({
      input: { installationID: 'in1', connector: 'http', name: 'jira', secret: 's3cret-value', hosts: ['jira.example.com', 'jira.example.com:8443'] },
    });
    expect(value.value).toBe('');
    await waitFor(() => expect(screen.getAllByRole('row')).toHaveLength(2));
    expect(document.body.textContent).not.toContain('s3cret-value');
  });

  it('shows why a save was refused, and keeps nothing secret on the page', async () => {
    setup(<ConnectorsPage />, {
      viewer: admin,
      handlers: {
        ConnectorsPage: () => answer([]),
        SetConnectorCredential: () => ({ errors: [{ message: 'a credential is 1 to 8192 bytes', extensions: { code: 'INVALID' } }] }),
      },
    });
    await screen.findByText('No credentials yet');
    await userEvent.type(screen.getByLabelText('Name'), 'jira');
    await userEvent.type(screen.getByLabelText('Value'), 'x');
    await userEvent.type(screen.getByLabelText('Hosts'), 'jira.example.com');
    await userEvent.click(screen.getByRole('button', { name: 'Save credential' }));
    expect((await screen.findByRole('alert')).textContent).toMatch('a credential is 1 to 8192 bytes');
    expect((screen.getByLabelText('Value') as HTMLInputElement).value).toBe('');
  });

  it('replaces a value from the list, and deletes after confirming', async () => {
    let creds = [cred()];
    const answers = [false, true];
    const orig = window.confirm;
    window.confirm = vi.fn(() => answers.shift() ?? false);
    const t = setup(<ConnectorsPage />, {
      viewer: admin,
      handlers: {
        ConnectorsPage: () => answer(creds),
        DeleteConnectorCredential: () => {
          creds = [];
          return { data: { deleteConnectorCredential: true } };
        },
      },
    });
    await userEvent.click(await screen.findByRole('button', { name: 'Replace the value of jira (http)' }));
    expect((screen.getByLabelText('Name') as HTMLInputElement).value).toBe('jira');
    expect((screen.getByLabelText('Hosts') as HTMLInputElement).value).toBe('jira.example.com');
    expect(document.activeElement).toBe(screen.getByLabelText('Value'));
    const del = screen.getByRole('button', { name: 'Delete jira (http)' });
    await userEvent.click(del);
    expect(t.callsOf('DeleteConnectorCredential')).toHaveLength(0); // not confirmed
    await userEvent.click(del);
    expect(t.callsOf('DeleteConnectorCredential')[0].variables).toEqual({ id: 'cc1' });
    expect(await screen.findByText('No credentials yet')).toBeTruthy();
    expect(window.confirm).toHaveBeenCalledTimes(2);
    window.confirm = orig;
  });
});
