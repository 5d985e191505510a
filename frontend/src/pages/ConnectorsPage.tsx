// Connector credentials (admins): list, set (or replace) and delete the
// secrets connectors use. The secret is write-only: no query returns it.
import { useRef, useState, type FormEvent } from 'react';
import { useMutation, useQuery } from 'urql';
import { graphql } from '../gql';
import { ActionError, Empty, ErrorState, Loading } from '../components/States';
import { ago, formatTime } from '../lib/format';
import { useSession } from '../lib/session';

export const ConnectorsPageQuery = graphql(`
  query ConnectorsPage {
    connectorCredentials {
      id
      connector
      name
      createdBy
      hosts
      createdAt
      updatedAt
      installation {
        id
        accountLogin
      }
    }
    status {
      installations {
        id
        accountLogin
      }
    }
    reviewers(first: 100) {
      edges {
        node {
          id
          connectors
        }
      }
    }
  }
`);

const SetCredentialMutation = graphql(`
  mutation SetConnectorCredential($input: SetConnectorCredentialInput!) {
    setConnectorCredential(input: $input) {
      id
      connector
      name
      hosts
      updatedAt
    }
  }
`);

const DeleteCredentialMutation = graphql(`
  mutation DeleteConnectorCredential($id: ID!) {
    deleteConnectorCredential(id: $id)
  }
`);

/** Names the API accepts for connectors and credentials. */
const NAME = /^[A-Za-z0-9._-]{1,64}$/;

/** The hosts field, split on commas and spaces. */
const splitHosts = (s: string) => s.split(/[\s,]+/).filter((h) => h !== '');

interface Row {
  id: string;
  connector: string;
  name: string;
  createdBy: string;
  hosts: string[];
  createdAt: string;
  updatedAt: string;
  installation: { id: string; accountLogin: string };
}

export default function ConnectorsPage() {
  const { viewer } = useSession();
  if (!viewer.isAdmin) {
    return (
      <div className="page">
        <h1>Connector credentials</h1>
        <Empty title="Admins only">Connector credentials are set by Chakshu's admins. Ask one if a reviewer's connector needs a credential.</Empty>
      </div>
    );
  }
  return <Credentials />;
}

function Credentials() {
  const [res, reexecute] = useQuery({ query: ConnectorsPageQuery });
  const refresh = () => reexecute({ requestPolicy: 'network-only' });
  const [saved, save] = useMutation(SetCredentialMutation);
  const [installation, setInstallation] = useState('');
  const [connector, setConnector] = useState('http');
  const [name, setName] = useState('');
  const [secret, setSecret] = useState('');
  const [hosts, setHosts] = useState('');
  const [done, setDone] = useState('');
  const secretRef = useRef<HTMLInputElement>(null);

  const installs = res.data?.status.installations ?? [];
  const inst = installation || installs[0]?.id || '';
  const rows: Row[] = res.data?.connectorCredentials ?? [];
  const known = [...new Set(['http', ...(res.data?.reviewers.edges ?? []).flatMap((e) => e?.node?.connectors ?? [])])].filter((c) => c !== 'github').sort();
  const valid = inst !== '' && NAME.test(connector.trim()) && NAME.test(name.trim()) && secret !== '' && (connector.trim() !== 'http' || splitHosts(hosts).length > 0);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!valid) return;
    setDone('');
    const r = await save({ input: { installationID: inst, connector: connector.trim(), name: name.trim(), secret, hosts: splitHosts(hosts) } });
    // The secret leaves the page as soon as it is sent, saved or not.
    setSecret('');
    if (r.data?.setConnectorCredential) {
      const c = r.data.setConnectorCredential;
      const to = c.hosts.length > 0 ? ` It is sent only to ${c.hosts.join(', ')}.` : '';
      setDone(`Saved ${c.name} (${c.connector}). It is stored encrypted and cannot be read back.${to}`);
      setName('');
      setHosts('');
      refresh();
    }
  };

  /** Replace: the form takes the row's installation, connector and name; only a new value is needed. */
  const replace = (r: Row) => {
    setInstallation(r.installation.id);
    setConnector(r.connector);
    setName(r.name);
    setHosts(r.hosts.join(', '));
    setSecret('');
    setDone('');
    secretRef.current?.focus();
  };

  return (
    <div className="page">
      <h1>Connector credentials</h1>
      <p className="muted">
        Secrets the connectors of your reviewers use (an <code>http</code> connector's header, for example), stored encrypted. They are write-only: once saved, no one can read them back, here or through the API.
      </p>
      {res.error && !res.data ? (
        <ErrorState error={res.error} retry={refresh} />
      ) : !res.data ? (
        <Loading label="Loading credentials…" />
      ) : (
        <>
          <section aria-labelledby="set-h">
            <h2 id="set-h">Set a credential</h2>
            {installs.length === 0 ? (
              <Empty title="No installations">Install the GitHub App on an account first: credentials belong to an installation.</Empty>
            ) : (
              <form className="filters" onSubmit={submit} aria-label="Set a connector credential" autoComplete="off">
                <label>
                  Installation
                  <select name="installation" value={inst} onChange={(e) => setInstallation(e.target.value)}>
                    {installs.map((i) => (
                      <option key={i.id} value={i.id}>
                        {i.accountLogin}
                      </option>
                    ))}
                  </select>
                </label>
                <label>
                  Connector
                  <input name="connector" list="connector-options" required value={connector} onChange={(e) => setConnector(e.target.value)} pattern="[A-Za-z0-9._\-]{1,64}" maxLength={64} />
                  <datalist id="connector-options">
                    {known.map((c) => (
                      <option key={c} value={c} />
                    ))}
                  </datalist>
                </label>
                <label>
                  Name
                  <input name="name" required value={name} onChange={(e) => setName(e.target.value)} placeholder="jira" pattern="[A-Za-z0-9._\-]{1,64}" maxLength={64} aria-describedby="name-help" />
                </label>
                <label>
                  Value
                  <input ref={secretRef} name="secret" type="password" required value={secret} onChange={(e) => setSecret(e.target.value)} autoComplete="new-password" spellCheck={false} />
                </label>
                <label>
                  Hosts
                  <input
                    name="hosts"
                    required={connector.trim() === 'http'}
                    value={hosts}
                    onChange={(e) => setHosts(e.target.value)}
                    placeholder="jira.example.com"
                    spellCheck={false}
                    aria-describedby="hosts-help"
                  />
                </label>
                <button type="submit" className="primary" disabled={saved.fetching || !valid}>
                  {saved.fetching ? 'Saving…' : 'Save credential'}
                </button>
                <p id="name-help" className="muted small-note">
                  The name a reviewer's <code>reviewer.yaml</code> refers to; letters, digits, “.”, “_” and “-”. Saving an existing name replaces its value.
                </p>
                <p id="hosts-help" className="muted small-note">
                  The only hosts the credential is sent to (required for <code>http</code>): exact names, comma separated, with an optional port (<code>jira.example.com:8443</code>); without a port only the default port matches. A call to any other host is refused before the credential is attached.
                </p>
              </form>
            )}
            <ActionError error={saved.error} />
            {done && (
              <p className="ok-text" role="status">
                {done}
              </p>
            )}
          </section>
          <section aria-labelledby="list-h">
            <h2 id="list-h">Stored credentials</h2>
            {rows.length === 0 ? (
              <Empty title="No credentials yet">Reviewers whose connectors need one say so in their run's tool errors. Set one above.</Empty>
            ) : (
              <div className="table-wrap">
                <table className="credentials">
                  <caption className="sr-only">Connector credentials (values are never shown)</caption>
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Connector</th>
                      <th scope="col">Installation</th>
                      <th scope="col">Hosts</th>
                      <th scope="col">Updated</th>
                      <th scope="col" className="hide-narrow">
                        Set by
                      </th>
                      <th scope="col">
                        <span className="sr-only">Actions</span>
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {rows.map((r) => (
                      <CredentialRow key={r.id} row={r} onReplace={() => replace(r)} onDeleted={refresh} />
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </section>
        </>
      )}
    </div>
  );
}

function CredentialRow({ row, onReplace, onDeleted }: { row: Row; onReplace: () => void; onDeleted: () => void }) {
  const [res, del] = useMutation(DeleteCredentialMutation);
  return (
    <tr>
      <td className="mono">{row.name}</td>
      <td>{row.connector}</td>
      <td>{row.installation.accountLogin}</td>
      <td className="mono">{row.hosts.length > 0 ? row.hosts.join(', ') : <span className="error-text">none: refused until set again with its hosts</span>}</td>
      <td>
        <time dateTime={row.updatedAt} title={formatTime(row.updatedAt)}>
          {ago(row.updatedAt)}
        </time>
      </td>
      <td className="hide-narrow">{row.createdBy}</td>
      <td className="actions">
        <button type="button" className="small" onClick={onReplace} aria-label={`Replace the value of ${row.name} (${row.connector})`}>
          Replace
        </button>
        <button
          type="button"
          className="danger small"
          disabled={res.fetching}
          aria-label={`Delete ${row.name} (${row.connector})`}
          onClick={async () => {
            if (!window.confirm(`Delete the credential “${row.name}” (${row.connector}) of ${row.installation.accountLogin}? Connectors using it stop working.`)) return;
            const r = await del({ id: row.id });
            if (!r.error) onDeleted();
          }}
        >
          Delete
        </button>
        <ActionError error={res.error} />
      </td>
    </tr>
  );
}
