import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import AuditPage, { auditWhere } from './AuditPage';
import { BudgetsPanel, budgetText, usedUp } from '../components/BudgetsPanel';
import { connection } from '../test/fixtures';
import { admin, pending, setup, user } from '../test/harness';

const entry = (over: Record<string, unknown> = {}) => ({
  __typename: 'AuditEntry',
  id: 'a1',
  createdAt: '2026-12-01T10:00:00Z',
  actor: 'carol',
  action: 'run.cancel',
  installationID: 'i1',
  target: 'acme/api#12 run 57',
  detail: '',
  ...over,
});

describe('AuditPage', () => {
  it('shows loading, then entries', async () => {
    setup(<AuditPage />, { viewer: admin, handlers: { AuditPage: pending } });
    expect(await screen.findByRole('status')).toBeTruthy();
  });

  it('lists entries newest first and filters by action and who', async () => {
    const t = setup(<AuditPage />, {
      viewer: admin,
      handlers: { AuditPage: () => ({ data: { auditLog: connection('AuditEntry', [entry(), entry({ id: 'a2', actor: 'cli:ops', action: 'credential.set', target: 'connector http credential jira', detail: 'hosts jira.example.com' })]) } }) },
    });
    expect(await screen.findByText('acme/api#12 run 57')).toBeTruthy();
    expect(screen.getByText('cli:ops')).toBeTruthy();
    expect(screen.getByText('hosts jira.example.com')).toBeTruthy();
    expect(t.callsOf('AuditPage')[0].variables).toEqual({ first: 50 });

    await userEvent.selectOptions(screen.getByLabelText('Action'), 'budget.set');
    await waitFor(() => expect(t.callsOf('AuditPage').at(-1)?.variables.where).toEqual({ action: 'budget.set' }));
  });

  it('shows empty and error states', async () => {
    const empty = setup(<AuditPage />, { viewer: admin, handlers: { AuditPage: () => ({ data: { auditLog: connection('AuditEntry', []) } }) } });
    expect(await screen.findByText('No audit entries')).toBeTruthy();
    empty.unmount();
    setup(<AuditPage />, { viewer: user, handlers: { AuditPage: () => ({ errors: [{ message: 'only admins can do this', extensions: { code: 'FORBIDDEN' } }] }) } });
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toMatch('only admins can do this');
    expect(screen.getByRole('button', { name: 'Try again' })).toBeTruthy();
  });

  it('builds the where-input from what is set', () => {
    expect(auditWhere('', '')).toBeUndefined();
    expect(auditWhere('token.create', ' ali ')).toEqual({ action: 'token.create', actorContainsFold: 'ali' });
  });
});

const budget = (over: Record<string, unknown> = {}) => ({
  __typename: 'Budget',
  scope: 'INSTALLATION',
  installationID: 'i1',
  repositoryID: null,
  name: 'acme',
  dailyUsd: 10,
  monthlyUsd: 0,
  spentTodayUsd: 10,
  spentThisMonthUsd: 42.5,
  dailyResetsAt: '2026-12-03T00:00:00Z',
  monthlyResetsAt: '2027-01-01T00:00:00Z',
  ...over,
});

describe('BudgetsPanel', () => {
  it('says a budget is used up at the limit, not below it', () => {
    expect(usedUp(9.99, 10)).toBe(false);
    expect(usedUp(10, 10)).toBe(true);
    expect(usedUp(100, 0)).toBe(false);
    expect(budgetText(2, 0)).toBe('$2.00 (no budget)');
  });

  it('shows spend against budgets and lets an admin set one', async () => {
    const t = setup(<BudgetsPanel />, {
      viewer: admin,
      handlers: {
        Budgets: () => ({ data: { budgets: [budget(), budget({ scope: 'REPOSITORY', repositoryID: 'r1', name: 'acme/api', dailyUsd: 0, monthlyUsd: 100, spentTodayUsd: 1, spentThisMonthUsd: 5 })] } }),
        SetBudget: (v) => ({ data: { setBudget: { __typename: 'Budget', scope: 'INSTALLATION', installationID: v.input.installationID, repositoryID: null, dailyUsd: v.input.dailyUsd, monthlyUsd: v.input.monthlyUsd } } }),
      },
    });
    expect(await screen.findByText(/\$10\.00 of \$10\.00/)).toBeTruthy();
    const over = document.querySelectorAll('.badge.danger'); // the day's budget; the month's $5 of $100 is not
    expect([...over].map((e) => e.textContent)).toEqual(['$10.00 of $10.00 — used up']);
    expect(screen.getByText('$5.00 of $100')).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Edit the budget of acme' }));
    const form = screen.getByRole('form', { name: 'Set budget' }) as HTMLFormElement;
    const daily = within(form).getByLabelText('Daily USD');
    await userEvent.clear(daily);
    await userEvent.type(daily, '25');
    expect([...form.querySelectorAll('input')].map((i) => `${i.value}:${i.validity.valid}`)).toEqual(['25:true', '0:true']);
    await userEvent.click(within(form).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(t.callsOf('SetBudget')).toHaveLength(1));
    expect(t.callsOf('SetBudget')[0].variables).toEqual({ input: { installationID: 'i1', dailyUsd: 25, monthlyUsd: 0 } });
  });

  it('gives a repository its first budget, or says it is unknown', async () => {
    const t = setup(<BudgetsPanel />, {
      viewer: admin,
      handlers: {
        Budgets: () => ({ data: { budgets: [] } }),
        BudgetRepository: (v) => ({
          data: { repositories: connection('Repository', v.name === 'acme/api' ? [{ __typename: 'Repository', id: 'r1', installation: { __typename: 'Installation', id: 'i1' } }] : []) },
        }),
        SetBudget: (v) => ({ data: { setBudget: { __typename: 'Budget', scope: 'REPOSITORY', installationID: v.input.installationID, repositoryID: v.input.repositoryID, dailyUsd: v.input.dailyUsd, monthlyUsd: v.input.monthlyUsd } } }),
      },
    });
    const form = await screen.findByRole('form', { name: 'Add a repository budget' });
    await userEvent.type(within(form).getByLabelText('Repository'), 'acme/nope');
    await userEvent.click(within(form).getByRole('button', { name: 'Add budget' }));
    expect((await within(form).findByRole('alert')).textContent).toMatch('knows no repository acme/nope');
    expect(t.callsOf('SetBudget')).toHaveLength(0);

    await userEvent.clear(within(form).getByLabelText('Repository'));
    await userEvent.type(within(form).getByLabelText('Repository'), 'acme/api');
    await userEvent.type(within(form).getByLabelText('Monthly USD'), '40');
    await userEvent.click(within(form).getByRole('button', { name: 'Add budget' }));
    await waitFor(() => expect(t.callsOf('SetBudget')).toHaveLength(1));
    expect(t.callsOf('SetBudget')[0].variables).toEqual({ input: { installationID: 'i1', repositoryID: 'r1', dailyUsd: 0, monthlyUsd: 40 } });
  });

  it('hides editing from non-admins and shows refusals', async () => {
    setup(<BudgetsPanel />, { viewer: user, handlers: { Budgets: () => ({ data: { budgets: [budget({ scope: 'REPOSITORY', repositoryID: 'r1', name: 'acme/api' })] } }) } });
    expect(await screen.findByText('acme/api')).toBeTruthy();
    expect(screen.queryByRole('button', { name: /Edit/ })).toBeNull();
    expect(screen.queryByRole('form', { name: 'Add a repository budget' })).toBeNull();
  });
});
