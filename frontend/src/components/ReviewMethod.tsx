// "How this review was made": the passes, their agreement and the verifier
// of one run, from Run.checked's samples and verify figures. The verifier's
// cost is the runner's estimate; the run's cost is what the gateway metered
// for every model call of the run, the verifier's included.
import { graphql, getFragmentData, type FragmentType } from '../gql';
import { formatCost } from '../lib/format';
import { isActive } from '../lib/runStatus';
import { Empty } from './States';

export const ReviewMethodFragment = graphql(`
  fragment ReviewMethod_run on Run {
    id
    status
    costUsd
    checked
  }
`);

/** The figures of a review in several passes (Run.checked.samples). */
export interface PassFigures {
  passes: number;
  ran: number;
  agree: number;
  /** The reviewer's agree when fewer passes ran than it asks for; 0 when met. */
  agreeAsked: number;
  passFindings: number[];
  /** The focus each pass that ran took, in the order of passFindings;
   * empty when the reviewer declared no lenses (or for older runs). */
  lenses: string[];
  distinct: number;
  kept: number;
  dropped: number;
}

/** The figures of the runner's verification step (Run.checked.verify). */
export interface VerifyFigures {
  candidates: number;
  confirmed: number;
  refuted: number;
  unverified: number;
  minConfidence: number;
  /** Conversations (one per file) and model calls (turns). */
  calls: number;
  turns: number;
  costUsd: number;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const obj = (v: unknown): Record<string, unknown> | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null);

/** Reads the samples and verify figures out of a run's checked map; a
 * missing or malformed part is null (older runs have neither). */
export function reviewFigures(checked: Record<string, unknown> | null | undefined): { passes: PassFigures | null; verify: VerifyFigures | null } {
  const s = obj(checked?.samples);
  const v = obj(checked?.verify);
  return {
    passes:
      s && num(s.passes) > 0
        ? {
            passes: num(s.passes),
            ran: num(s.ran),
            agree: num(s.agree),
            agreeAsked: num(s.agree_asked),
            passFindings: Array.isArray(s.pass_findings) ? s.pass_findings.map(num) : [],
            lenses: Array.isArray(s.lenses) ? s.lenses.map(str) : [],
            distinct: num(s.distinct),
            kept: num(s.kept),
            dropped: num(s.dropped),
          }
        : null,
    verify: v
      ? {
          candidates: num(v.candidates),
          confirmed: num(v.confirmed),
          refuted: num(v.refuted),
          unverified: num(v.unverified),
          minConfidence: num(v.min_confidence),
          calls: num(v.calls),
          turns: num(v.turns),
          costUsd: num(v.cost_usd),
        }
      : null,
  };
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export function ReviewMethod(props: { run: FragmentType<typeof ReviewMethodFragment> }) {
  const run = getFragmentData(ReviewMethodFragment, props.run);
  const { passes, verify } = reviewFigures(run.checked);
  return (
    <section aria-labelledby="method-h" className="review-method">
      <h2 id="method-h">How this review was made</h2>
      {!passes && !verify && isActive(run.status) ? (
        <p className="muted">The passes' and the verifier's figures appear here when the run has finished.</p>
      ) : !passes && !verify ? (
        <Empty title="No figures on how this review was made">
          This run was reviewed in a single pass without a verifier, or ran before Chakshu kept these figures.
        </Empty>
      ) : (
        <dl className="facts">
          {passes && (
            <>
              <div>
                <dt>Passes</dt>
                <dd>
                  {passes.ran} of {passes.passes} ran
                  {passes.passFindings.length > 0 && <span className="muted"> (findings per pass: {passes.passFindings.join(', ')})</span>}
                </dd>
              </div>
              {passes.lenses.length > 0 && (
                <div>
                  <dt>Lenses</dt>
                  <dd>
                    <ol className="lenses">
                      {passes.lenses.map((lens, i) => (
                        <li key={i}>
                          Pass {i + 1}: {lens || <span className="muted">no lens</span>}
                          {i < passes.passFindings.length && <span className="muted"> ({plural(passes.passFindings[i], 'finding')})</span>}
                        </li>
                      ))}
                    </ol>
                  </dd>
                </div>
              )}
              <div>
                <dt>Agreement</dt>
                <dd>
                  {passes.agreeAsked > 0 ? (
                    <span className="warn" role="status">
                      Not met: the reviewer asks {passes.agreeAsked} passes to agree, only {plural(passes.ran, 'pass', 'passes')} ran, so a finding needed {passes.agree}
                    </span>
                  ) : (
                    <>
                      Met: a finding needed {passes.agree} of {passes.ran} passes
                    </>
                  )}
                </dd>
              </div>
              <div>
                <dt>Dropped by agreement</dt>
                <dd>
                  {plural(passes.dropped, 'finding')} <span className="muted">of {passes.distinct} distinct, {passes.kept} kept</span>
                </dd>
              </div>
            </>
          )}
          {verify && (
            <>
              <div>
                <dt>Verified</dt>
                <dd>
                  {plural(verify.candidates, 'candidate')}: {verify.confirmed} confirmed, {verify.refuted} refuted
                  {verify.unverified > 0 && `, ${verify.unverified} unverified`}
                  {verify.minConfidence > 0 && <span className="muted"> (minimum confidence {verify.minConfidence})</span>}
                </dd>
              </div>
              <div>
                <dt>Verifier's cost</dt>
                <dd>
                  {formatCost(verify.costUsd)}{' '}
                  <span className="muted">
                    (the runner's estimate) in {plural(verify.turns, 'model call')}, part of the run's {formatCost(run.costUsd)}
                  </span>
                </dd>
              </div>
            </>
          )}
        </dl>
      )}
    </section>
  );
}
