// Run statuses as the portal shows them.
import type { RunStatus } from '../gql/graphql';

export const RUN_STATUSES: readonly RunStatus[] = ['queued', 'dispatched', 'running', 'publishing', 'succeeded', 'failed', 'cancelled'];

/** The happy path of a run, in order (the timeline's steps). */
export const RUN_STEPS: readonly RunStatus[] = ['queued', 'dispatched', 'running', 'publishing', 'succeeded'];

const active = new Set<string>(['queued', 'dispatched', 'running', 'publishing']);

/** Whether a run can still change (so its view keeps refreshing). */
export function isActive(status: string | null | undefined): boolean {
  return status != null && active.has(status);
}

export const TRIGGERS = ['comment', 'review_request', 'label', 'portal', 'auto', 'rerequest', 'reply'] as const;

/** "review_request" → "review request". */
export function humanize(s: string): string {
  return s.replace(/_/g, ' ');
}
