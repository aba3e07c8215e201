// The words of a receiver's policy, apart from its rules: the config file's schema reads them, and
// must not load the contract model (zod's full API) to do it.

/**
 * What a receiver requires of a contract before it acts on it (docs/contracts.md, "The receiver's
 * policy"): by default nothing beyond what the kind needs; each value makes one field required and
 * its checks strict. From `--require LIST` or the config file's `contractRequire`.
 */
export const POLICY_VALUES = [
	'state',
	'authority',
	'evidence',
	'guardrails',
	'trace',
	'escalation',
	'execution',
	'delivery',
	'stop_when',
	'scope',
] as const;
export type PolicyValue = (typeof POLICY_VALUES)[number];

/** `trace:exception`: a trace without a parent span is taken, on an exception path that is recorded. */
export const TRACE_EXCEPTION = 'trace:exception';

/** Every word a policy list may hold. */
export const POLICY_TOKENS: readonly string[] = [...POLICY_VALUES, TRACE_EXCEPTION];
