// An installation's repositories and their workflow: enrol them with
// GitHub's own new-file or edit page, or an onboarding pull request where
// the installation granted Workflows: write.
import { useMutation, useQuery } from 'urql';
import { graphql, getFragmentData } from '../gql';
import type { WorkflowState } from '../gql/graphql';
import { ActionError, Empty, ErrorState, Loading } from '../components/States';

const InstallationPageQuery = graphql(`
  query InstallationPage($id: ID!) {
    enrolment(installationID: $id) {
      installation {
        id
        accountLogin
      }
      canOpenPullRequests
      template
      repositories {
        ...RepoEnrolment
      }
    }
  }
`);

const RepoEnrolmentFragment = graphql(`
  fragment RepoEnrolment on RepositoryEnrolment {
    repository {
      id
      fullName
      defaultBranch
    }
    state
    detail
    newWorkflowUrl
    editWorkflowUrl
    onboardingPullRequest {
      number
      url
      state
    }
  }
`);

const OpenOnboardingMutation = graphql(`
  mutation OpenOnboardingPullRequest($repository: ID!) {
    openOnboardingPullRequest(repository: $repository) {
      ...RepoEnrolment
    }
  }
`);

/** The state as the page says it. */
export const stateLabel: Record<WorkflowState, string> = {
  CURRENT: 'current',
  OUTDATED: 'outdated',
  MISSING: 'missing',
  NOT_DISPATCHABLE: 'not dispatchable',
};

type Row = {
  repository: { id: string; fullName: string; defaultBranch: string };
  state: WorkflowState;
  detail: string;
  newWorkflowUrl?: string | null;
  editWorkflowUrl?: string | null;
  onboardingPullRequest?: { number: number; url: string; state: string } | null;
};

function RepoRow({ row: initial, canOpen }: { row: Row; canOpen: boolean }) {
  const [res, open] = useMutation(OpenOnboardingMutation);
  const opened = res.data ? getFragmentData(RepoEnrolmentFragment, res.data.openOnboardingPullRequest) : null;
  const row = opened ?? initial;
  const pr = row.onboardingPullRequest;
  const openPR = pr && pr.state === 'OPEN';
  return (
    <tr>
      <th scope="row">{row.repository.fullName}</th>
      <td>
        <span className={row.state === 'CURRENT' ? 'badge badge-ok' : 'badge'}>{stateLabel[row.state]}</span>
        {row.state !== 'CURRENT' && <div className="muted">{row.detail}</div>}
      </td>
      <td>
        {pr && (
          <a href={pr.url}>
            #{pr.number} ({pr.state.toLowerCase()})
          </a>
        )}
      </td>
      <td>
        {row.newWorkflowUrl && (
          <a className="button" href={row.newWorkflowUrl} target="_blank" rel="noreferrer">
            Add the workflow on GitHub
          </a>
        )}
        {row.editWorkflowUrl && (
          <a className="button" href={row.editWorkflowUrl} target="_blank" rel="noreferrer">
            Edit the workflow on GitHub
          </a>
        )}
        {canOpen && row.state !== 'CURRENT' && !openPR && (
          <button type="button" disabled={res.fetching} onClick={() => open({ repository: row.repository.id })}>
            Open onboarding pull request
          </button>
        )}
        <ActionError error={res.error} />
      </td>
    </tr>
  );
}

export default function InstallationPage({ id }: { id: string }) {
  const [{ data, fetching, error }, refetch] = useQuery({ query: InstallationPageQuery, variables: { id } });
  if (fetching && !data) return <Loading />;
  if (error && !data) return <ErrorState error={error} retry={() => refetch({ requestPolicy: 'network-only' })} />;
  const e = data?.enrolment;
  if (!e) return <Empty title="No such installation" />;
  const rows: readonly Row[] = getFragmentData(RepoEnrolmentFragment, e.repositories);
  return (
    <section aria-labelledby="inst-title">
      <h1 id="inst-title">Repositories of {e.installation.accountLogin}</h1>
      <p className="muted">
        Each repository needs <code>.github/workflows/chakshu.yml</code> on its default branch.{' '}
        {e.canOpenPullRequests
          ? 'This installation granted Workflows: write, so Chakshu can open an onboarding pull request (it never pushes to a default branch).'
          : 'Add it on GitHub with your own rights: the link opens GitHub’s page with the template filled in. (Granting the App the optional Workflows: write permission lets Chakshu open pull requests instead.)'}
      </p>
      {rows.length === 0 ? (
        <Empty title="No repositories">The installation covers no repository yet.</Empty>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th scope="col">Repository</th>
              <th scope="col">Workflow</th>
              <th scope="col">Onboarding pull request</th>
              <th scope="col">Enrol</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <RepoRow key={r.repository.id} row={r} canOpen={e.canOpenPullRequests} />
            ))}
          </tbody>
        </table>
      )}
      <details>
        <summary>The workflow template (to paste into GitHub’s edit page)</summary>
        <pre>{e.template}</pre>
      </details>
    </section>
  );
}
