import * as z from 'zod';

/** The three kinds of handoff contract (docs/contracts.md, "Fields per kind"). */
export const CONTRACT_KINDS = ['task', 'bug', 'transfer'] as const;
export type ContractKind = (typeof CONTRACT_KINDS)[number];

const text = z.string().trim().min(1);
const lines = z.array(text).min(1);
/** A list that must be present but may be empty: `[]` and a missing key are different claims. */
const listMayBeEmpty = z.array(text);

const authority = z.object({
	may_read: z.array(text).optional(),
	may_write: z.array(text).optional(),
	needs_reapproval: z.array(text).optional(),
});
const evidencePointer = z.object({pointer: text, note: z.string().optional()});
const guardrails = z.object({
	passed: z.array(text).optional(),
	applying: z.array(text).optional(),
	tripwires: z.array(text).optional(),
});
const trace = z.object({trace_id: text, parent_span: z.string().optional()});
const escalation = z.object({
	contradiction: z.string().optional(),
	partial_success: z.string().optional(),
	expired_approval: z.string().optional(),
	low_confidence: z.string().optional(),
});

/** Optional production fields any kind may carry. */
const production = {
	authority: authority.optional(),
	evidence: z.array(evidencePointer).optional(),
	guardrails: guardrails.optional(),
	trace: trace.optional(),
	escalation: escalation.optional(),
};

const context = z.object({
	repository: text,
	base_revision: text,
	reproduction: z.string().optional(),
	expected: z.string().optional(),
	fixtures: z.union([text, z.array(text)], {error: 'text or a list'}).optional(),
});

const acceptance = z.object({
	checks: lines,
	/** Role → person. Never the operator. */
	acceptors: z.record(z.string(), text).refine(record => Object.keys(record).length > 0, {message: 'at least one acceptor'}),
});

const execution = z.object({
	operator: text,
	setup_command: text.optional(),
	test_command: text,
	permissions: text,
});

/** A piece of work to do. */
export const TaskContract = z.object({
	kind: z.literal('task'),
	title: text,
	goal: text,
	context,
	scope: z.object({allowed: lines, excluded: listMayBeEmpty}),
	execution,
	acceptance,
	stop_when: lines,
	delivery: z.object({
		patch_revision: text,
		commands_and_results: text,
		sample_output: z.string().optional(),
		untested_cases: text,
	}),
	...production,
});

/** A defect to fix: always "reproduce", never "steps". */
export const BugContract = z.object({
	kind: z.literal('bug'),
	title: text,
	problem: text,
	reproduce: lines,
	expected: text,
	hard_to_see: text,
	context,
	execution: execution.partial({test_command: true, permissions: true}).optional(),
	acceptance,
	...production,
});

/** Knowledge handed from one worker to the next. */
export const TransferContract = z.object({
	kind: z.literal('transfer'),
	title: text,
	problem: text,
	solution_shape: text,
	decisions: z.array(z.object({choice: text, over: text, why: text})).min(1),
	steps: lines,
	verification: lines,
	gotchas: listMayBeEmpty,
	/**
	 * Values to adapt, not copy: a mapping (name → how to adapt it, or the value as found) or a list
	 * of names or `name: how` items, as people write it.
	 */
	environment_specific: z.union(
		[
			z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
			z.array(z.union([text, z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]))])),
		],
		{error: 'a list or a mapping'},
	),
	execution: execution.partial({test_command: true, permissions: true}).optional(),
	acceptance: acceptance.optional(),
	...production,
});

/** The one model: a contract of any kind, told apart by `kind`. */
export const Contract = z.discriminatedUnion('kind', [TaskContract, BugContract, TransferContract]);
export type Contract = z.infer<typeof Contract>;

/** The lines a hand-in must bring evidence for: acceptance checks, or a transfer's verification. */
export function acceptanceLines(contract: Contract): readonly string[] {
	if (contract.kind === 'transfer') return contract.acceptance?.checks ?? contract.verification;
	return contract.acceptance.checks;
}

/** Who accepts the work, by role. */
export function acceptorsOf(contract: Contract): Readonly<Record<string, string>> {
	return contract.acceptance?.acceptors ?? {};
}

/** Who does the work, when the contract names one. */
export function operatorOf(contract: Contract): string | null {
	return contract.execution?.operator ?? null;
}
