import {assertNever} from '../assert-never.ts';
import {asList, contextMapOf, type Contract} from './model.ts';
import {POLICY_VALUES, TRACE_EXCEPTION, type PolicyValue} from './policy-values.ts';
import {error, warning, type ContractProblem} from './problems.ts';

export type ReceiverPolicy = {
	readonly requires: ReadonlySet<PolicyValue>;
	/** A trace without a parent span: refused, or taken on a recorded exception path. */
	readonly orphanTrace: 'refuse' | 'exception';
};

/** No requirement beyond what each kind needs. */
export const NO_POLICY: ReceiverPolicy = {requires: new Set(), orphanTrace: 'refuse'};

/** What each value asks for, in the words of a problem line. */
const ASKS: Readonly<Record<PolicyValue, string>> = {
	state: 'write state: what was tried, and which assumptions are confirmed or provisional',
	authority: 'write authority: what the receiver may read, may write, and what needs re-approval',
	evidence: 'write evidence: pointers (a file in the repository, a commit, a URL) that back the next step',
	guardrails: 'write guardrails: checks passed, checks still applying, tripwires',
	trace: 'write trace: trace_id and parent_span',
	escalation: 'write escalation: what to do on contradictory evidence, partial success, an expired approval, low confidence',
	execution: 'write execution: operator, test_command and permissions',
	delivery: 'write delivery: patch_revision, commands_and_results and untested_cases',
	stop_when: 'write stop_when: the conditions on which the worker stops and asks',
	scope: 'write scope: what may change (allowed) and what must not (excluded)',
};

/** Reads a policy list (`authority,trace`, `["state", "trace:exception"]`); an unknown value is one line naming it. */
export function parsePolicy(values: readonly string[]): {readonly policy: ReceiverPolicy} | {readonly problem: string} {
	const requires = new Set<PolicyValue>();
	let orphanTrace: ReceiverPolicy['orphanTrace'] = 'refuse';
	for (const raw of values) {
		const value = raw.trim();
		if (value === '') continue;
		if (value === TRACE_EXCEPTION) {
			requires.add('trace');
			orphanTrace = 'exception';
			continue;
		}
		const known = POLICY_VALUES.find(candidate => candidate === value);
		if (known === undefined)
			return {problem: `'${value}' is not a policy value (${POLICY_VALUES.join(', ')}, or ${TRACE_EXCEPTION})`};
		requires.add(known);
	}
	return {policy: {requires, orphanTrace}};
}

/** The policy as a list, as it is recorded with a claim or a run. */
export function policyList(policy: ReceiverPolicy): string[] {
	return POLICY_VALUES.filter(value => policy.requires.has(value)).map(value =>
		value === 'trace' && policy.orphanTrace === 'exception' ? TRACE_EXCEPTION : value,
	);
}

const required = (value: PolicyValue, field: string = value): ContractProblem =>
	error(field, `required by the receiver's policy (${value}): ${ASKS[value]}`);

const hasAny = (record: object | undefined, keys: readonly string[]): boolean =>
	record !== undefined &&
	keys.some(key => {
		const value = (record as Record<string, unknown>)[key];
		return value !== undefined && value !== null && value !== '' && !(Array.isArray(value) && value.length === 0);
	});

function requirement(contract: Contract, value: PolicyValue, policy: ReceiverPolicy): ContractProblem[] {
	switch (value) {
		case 'state': {
			const problems = contract.state === undefined ? [required('state')] : [];
			if (contextMapOf(contract)?.base_revision === undefined)
				problems.push(
					error(
						'context.base_revision',
						"required by the receiver's policy (state): the commit the state was taken at, so a stale one can be told",
					),
				);
			return problems;
		}
		case 'authority':
			return hasAny(contract.authority, ['may_read', 'may_write', 'needs_reapproval']) ? [] : [required('authority')];
		case 'evidence':
			return (contract.evidence ?? []).length > 0 ? [] : [required('evidence')];
		case 'guardrails':
			return hasAny(contract.guardrails, ['passed', 'applying', 'tripwires']) ? [] : [required('guardrails')];
		case 'trace': {
			if (contract.trace === undefined) return [required('trace')];
			if (contract.trace.parent_span?.trim()) return [];
			return policy.orphanTrace === 'exception'
				? [
						warning(
							'trace.parent_span',
							'none: the work starts a new root trace, on an exception path that is recorded (policy trace:exception)',
						),
					]
				: [
						error(
							'trace.parent_span',
							"required by the receiver's policy (trace): the span this handoff continues; without it the trace breaks here",
						),
					];
		}
		case 'escalation': {
			const plan = contract.escalation;
			if (plan === undefined || (typeof plan === 'object' && !hasAny(plan, Object.keys(plan)))) return [required('escalation')];
			if (typeof plan === 'string') return [];
			const missing = ['contradiction', 'partial_success', 'expired_approval', 'low_confidence'].filter(
				key => !hasAny(plan, [key]),
			);
			return missing.length === 0
				? []
				: [warning('escalation', `says nothing for ${missing.join(', ')}: say what the receiver does then`)];
		}
		case 'execution':
			return (['operator', 'test_command', 'permissions'] as const)
				.filter(key => !contract.execution?.[key])
				.map(key => required('execution', `execution.${key}`));
		case 'delivery':
			return (['patch_revision', 'commands_and_results', 'untested_cases'] as const)
				.filter(key => !contract.delivery?.[key])
				.map(key => required('delivery', `delivery.${key}`));
		case 'stop_when':
			return (contract.stop_when ?? []).length > 0 ? [] : [required('stop_when')];
		case 'scope':
			return asList(contract.scope?.allowed).length + asList(contract.scope?.excluded).length > 0 ? [] : [required('scope')];
		default:
			return assertNever(value);
	}
}

/** What the policy requires and the contract lacks, one line per field. Pure. */
export function policyProblems(contract: Contract, policy: ReceiverPolicy): ContractProblem[] {
	return POLICY_VALUES.filter(value => policy.requires.has(value)).flatMap(value => requirement(contract, value, policy));
}
