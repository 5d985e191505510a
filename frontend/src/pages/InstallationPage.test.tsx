import { describe, expect, it } from 'vitest';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import InstallationPage from './InstallationPage';
import { setup } from '../test/harness';

const repo = (name: string, state: string, over: Record<string, unknown> = {}) => ({
  __typename: 'RepositoryEnrolment',
  repository: { __typename: 'Repository', id: `r-${name}`, fullName: `acme/${name}`, defaultBranch: 'main' },
  state,
  detail: `${name} detail`,
  newWorkflowUrl: null,
  editWorkflowUrl: null,
  onboardingPullRequest: null,
  ...over,
});

const newURL = 'https://github.com/acme/api/new/main?filename=.github%2Fworkflows%2Fchakshu.yml&value=on%3A';
const editURL = 'https://github.com/acme/old/edit/main/.github/workflows/chakshu.yml';

const enrolment = (canOpenPullRequests: boolean, repositories: unknown[]) => ({
  data: {
    enrolment: {
      __typename: 'Enrolment',
      installation: { __typename: 'Installation', id: 'i1', accountLogin: 'acme' },
      canOpenPullRequests,
      template: 'on:\n  workflow_dispatch:\n',
      repositories,
    },
  },
});

const rows = [
  repo('api', 'MISSING', { newWorkflowUrl: newURL }),
  repo('old', 'OUTDATED', { editWorkflowUrl: editURL }),
  repo('web', 'CURRENT'),
  repo('odd', 'NOT_DISPATCHABLE', { editWorkflowUrl: editURL.replace('old', 'odd') }),
];

function row(name: string) {
  return screen.getByRole('row', { name: new RegExp(`acme/${name}`) });
}

describe('InstallationPage', () => {
  it('lists each repository with its state and GitHub’s page to fix it, without pull requests when Workflows: write is not granted', async () => {
    setup(<InstallationPage id="i1" />, { handlers: { InstallationPage: () => enrolment(false, rows) } });
    expect(await screen.findByRole('heading', { name: 'Repositories of acme' })).toBeTruthy();
    expect(within(row('api')).getByText('missing')).toBeTruthy();
    expect(within(row('old')).getByText('outdated')).toBeTruthy();
    expect(within(row('web')).getByText('current')).toBeTruthy();
    expect(within(row('odd')).getByText('not dispatchable')).toBeTruthy();
    expect(within(row('api')).getByRole('link', { name: 'Add the workflow on GitHub' }).getAttribute('href')).toBe(newURL);
    expect(within(row('old')).getByRole('link', { name: 'Edit the workflow on GitHub' }).getAttribute('href')).toBe(editURL);
    expect(within(row('web')).queryByRole('link')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Open onboarding pull request' })).toBeNull();
    expect(screen.getByText(/Workflows: write permission lets Chakshu open pull requests/)).toBeTruthy();
  });

  it('opens an onboarding pull request and shows it; one already open is listed instead of the button', async () => {
    const t = setup(<InstallationPage id="i1" />, {
      handlers: {
        InstallationPage: () =>
          enrolment(true, [
            repo('api', 'MISSING', { newWorkflowUrl: newURL }),
            repo('old', 'OUTDATED', {
              editWorkflowUrl: editURL,
              onboardingPullRequest: { __typename: 'OnboardingPullRequest', number: 4, url: 'https://github.com/acme/old/pull/4', state: 'OPEN' },
            }),
            repo('web', 'CURRENT'),
          ]),
        OpenOnboardingPullRequest: () => ({
          data: {
            openOnboardingPullRequest: repo('api', 'MISSING', {
              newWorkflowUrl: newURL,
              onboardingPullRequest: { __typename: 'OnboardingPullRequest', number: 7, url: 'https://github.com/acme/api/pull/7', state: 'OPEN' },
            }),
          },
        }),
      },
    });
    await screen.findByRole('heading', { name: 'Repositories of acme' });
    expect(within(row('old')).getByRole('link', { name: '#4 (open)' })).toBeTruthy();
    expect(within(row('old')).queryByRole('button')).toBeNull();
    expect(within(row('web')).queryByRole('button')).toBeNull();
    await userEvent.click(within(row('api')).getByRole('button', { name: 'Open onboarding pull request' }));
    expect((await within(row('api')).findByRole('link', { name: '#7 (open)' })).getAttribute('href')).toBe('https://github.com/acme/api/pull/7');
    expect(t.callsOf('OpenOnboardingPullRequest')[0].variables).toEqual({ repository: 'r-api' });
    expect(within(row('api')).queryByRole('button', { name: 'Open onboarding pull request' })).toBeNull();
  });

  it('shows GitHub’s refusal', async () => {
    setup(<InstallationPage id="i1" />, {
      handlers: {
        InstallationPage: () => enrolment(true, [repo('api', 'MISSING', { newWorkflowUrl: newURL })]),
        OpenOnboardingPullRequest: () => ({ errors: [{ message: 'GitHub refused the onboarding pull request', extensions: { code: 'FORBIDDEN' } }] }),
      },
    });
    await screen.findByRole('heading', { name: 'Repositories of acme' });
    await userEvent.click(screen.getByRole('button', { name: 'Open onboarding pull request' }));
    expect((await screen.findByRole('alert')).textContent).toMatch('GitHub refused the onboarding pull request');
  });
});
