// Spend budgets on the Costs page: each installation's (admins) and each
// repository's that has one, with today's and this month's spend; admins set
// them here. A run queued while a budget is used up fails at dispatch.
import { useState, type FormEvent } from 'react';
import { useClient, useMutation, useQuery } from 'urql';
import { graphql } from '../gql';
import { useSession } from '../lib/session';
import { formatCost, formatTime } from '../lib/format';
import { ActionError, ErrorState, Loading } from './States';

export const BudgetsQuery = graphql(`
  query Budgets {
    budgets {
      scope
      installationID
      repositoryID
      name
      dailyUsd
      monthlyUsd
      spentTodayUsd
      spentThisMonthUsd
      dailyResetsAt
      monthlyResetsAt
    }
  }
`);

const SetBudgetMutation = graphql(`
  mutation SetBudget($input: SetBudgetInput!) {
    setBudget(input: $input) {
      scope
      installationID
      repositoryID
      dailyUsd
      monthlyUsd
    }
  }
`);

const BudgetRepositoryQuery = graphql(`
  query BudgetRepository($name: String!) {
    repositories(first: 1, where: { fullNameEqualFold: $name }) {
      edges {
        node {
          id
          installation {
            id
          }
        }
      }
    }
  }
`);

/** "spent of limit", or "no budget" when the limit is 0. */
export function budgetText(spent: number, limit: number): string {
  if (limit <= 0) return `${formatCost(spent)} (no budget)`;
  return `${formatCost(spent)} of ${formatCost(limit)}`;
}

/** Whether a budget is used up (runs under it fail at dispatch). */
export function usedUp(spent: number, limit: number): boolean {
  return limit > 0 && spent >= limit;
}

function Usage({ spent, limit, resets }: { spent: number; limit: number; resets: string }) {
  const over = usedUp(spent, limit);
  return (
    <span className={over ? 'badge danger' : undefined} title={`Resets ${formatTime(resets)}`}>
      {budgetText(spent, limit)}
      {over && ' — used up'}
    </span>
  );
}

function BudgetForm({ installationID, repositoryID, daily, monthly, onSaved }: { installationID: string; repositoryID?: string | null; daily: number; monthly: number; onSaved: () => void }) {
  const [d, setD] = useState(String(daily));
  const [m, setM] = useState(String(monthly));
  const [res, save] = useMutation(SetBudgetMutation);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const r = await save({ input: { installationID, repositoryID: repositoryID ?? undefined, dailyUsd: Number(d) || 0, monthlyUsd: Number(m) || 0 } });
    if (r.data?.setBudget) onSaved();
  };
  return (
    <form className="inline-form" onSubmit={submit} aria-label="Set budget">
      <label>
        Daily USD
        <input type="number" min="0" step="any" value={d} onChange={(e) => setD(e.target.value)} />
      </label>
      <label>
        Monthly USD
        <input type="number" min="0" step="any" value={m} onChange={(e) => setM(e.target.value)} />
      </label>
      <button type="submit" className="small" disabled={res.fetching}>
        Save
      </button>
      <ActionError error={res.error} />
    </form>
  );
}

/** Gives a repository that has no budget yet its first one. */
function AddRepositoryBudget({ onSaved }: { onSaved: () => void }) {
  const client = useClient();
  const [name, setName] = useState('');
  const [d, setD] = useState('');
  const [m, setM] = useState('');
  const [notFound, setNotFound] = useState<Error | null>(null);
  const [res, save] = useMutation(SetBudgetMutation);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setNotFound(null);
    const found = await client.query(BudgetRepositoryQuery, { name: name.trim() }, { requestPolicy: 'network-only' }).toPromise();
    const repo = found.data?.repositories.edges?.[0]?.node;
    if (!repo) {
      setNotFound(found.error ?? new Error(`Chakshu knows no repository ${name.trim()} that you can read.`));
      return;
    }
    const r = await save({ input: { installationID: repo.installation.id, repositoryID: repo.id, dailyUsd: Number(d) || 0, monthlyUsd: Number(m) || 0 } });
    if (r.data?.setBudget) {
      setName('');
      setD('');
      setM('');
      onSaved();
    }
  };
  return (
    <form className="filters" onSubmit={submit} aria-label="Add a repository budget">
      <label>
        Repository
        <input name="repository" required value={name} onChange={(e) => setName(e.target.value)} placeholder="owner/name" />
      </label>
      <label>
        Daily USD
        <input type="number" min="0" step="any" value={d} onChange={(e) => setD(e.target.value)} />
      </label>
      <label>
        Monthly USD
        <input type="number" min="0" step="any" value={m} onChange={(e) => setM(e.target.value)} />
      </label>
      <button type="submit" disabled={res.fetching || !name.trim()}>
        Add budget
      </button>
      <ActionError error={notFound ?? res.error} />
    </form>
  );
}

export function BudgetsPanel() {
  const { viewer } = useSession();
  const [res, reexecute] = useQuery({ query: BudgetsQuery });
  const [editing, setEditing] = useState<string | null>(null);
  const refresh = () => {
    setEditing(null);
    reexecute({ requestPolicy: 'network-only' });
  };
  const budgets = res.data?.budgets ?? [];
  return (
    <section className="card" aria-labelledby="budgets-title">
      <h2 id="budgets-title">Budgets</h2>
      <p className="muted">Daily (UTC) and monthly spend limits. A review queued after a budget is used up fails at once, and its check says which budget and when it resets. 0 means no budget.</p>
      {res.error && !res.data ? (
        <ErrorState error={res.error} retry={() => reexecute({ requestPolicy: 'network-only' })} />
      ) : !res.data ? (
        <Loading label="Loading budgets…" />
      ) : budgets.length === 0 ? (
        <p className="muted">No budgets to show: installations' budgets are shown to their admins, and repositories appear once they have one.</p>
      ) : (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Budget of</th>
                <th scope="col">Today</th>
                <th scope="col">This month</th>
                {viewer.isAdmin && (
                  <th scope="col">
                    <span className="sr-only">Actions</span>
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {budgets.map((b) => {
                const key = `${b.scope}:${b.repositoryID ?? b.installationID}`;
                return (
                  <tr key={key}>
                    <td>
                      {b.name}
                      <div className="sub">{b.scope === 'INSTALLATION' ? 'installation' : 'repository'}</div>
                    </td>
                    <td>
                      <Usage spent={b.spentTodayUsd} limit={b.dailyUsd} resets={b.dailyResetsAt} />
                    </td>
                    <td>
                      <Usage spent={b.spentThisMonthUsd} limit={b.monthlyUsd} resets={b.monthlyResetsAt} />
                    </td>
                    {viewer.isAdmin && (
                      <td>
                        {editing === key ? (
                          <BudgetForm installationID={b.installationID} repositoryID={b.repositoryID} daily={b.dailyUsd} monthly={b.monthlyUsd} onSaved={refresh} />
                        ) : (
                          <button type="button" className="small" onClick={() => setEditing(key)} aria-label={`Edit the budget of ${b.name}`}>
                            Edit
                          </button>
                        )}
                      </td>
                    )}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {viewer.isAdmin && <AddRepositoryBudget onSaved={refresh} />}
    </section>
  );
}
