import * as z from 'zod';

/** The three kinds of handoff contract (docs/contracts.md, "Fields per kind"). */
export const CONTRACT_KINDS = ['task', 'bug', 'transfer'] as const;
export type ContractKind = (typeof CONTRACT_KINDS)[number];

const text = z.string().trim().min(1);
const lines = z.array(text).min(1);
/** A list that must be present but may be empty: `[]` and a missing key are different claims. */
const listMayBeEmpty = z.array(text);
/** Prose stays prose, a list stays a list: the field keeps the form it was written in. */
const textOrList = z.union([text, z.array(text)], {error: 'text or a list'});

const authority = z.object({
	may_read: z.array(text).optional(),
	may_write: z.array(text).optional(),
	needs_reapproval: z.array(text).optional(),
});
/** One pointer of an evidence bundle: a file in the repository, a commit, or a URL (docs/contracts.md, "Evidence bundle"). */
const evidencePointer = z.object({pointer: text, note: z.string().optional()});
const guardrails = z.object({
	passed: z.array(text).optional(),
	applying: z.array(text).optional(),
	tripwires: z.array(text).optional(),
});
const trace = z.object({trace_id: text, parent_span: z.string().optional()});
const escalationPlan = z.looseObject({
	contradiction: z.string().optional(),
	partial_success: z.string().optional(),
	expired_approval: z.string().optional(),
	low_confidence: z.string().optional(),
});

/** Optional production fields any kind may carry (intent is the goal; state stands beside context). */
const production = {
	authority: authority.optional(),
	evidence: z.array(evidencePointer).optional(),
	guardrails: guardrails.optional(),
	trace: trace.optional(),
	escalation: z.union([text, escalationPlan], {error: 'text or a mapping'}).optional(),
};

/** Where the work is and what exists: prose, or the structured form (other keys are kept as written). */
const contextMap = z.looseObject({
	repository: text.optional(),
	base_revision: text.optional(),
	reproduction: z.string().optional(),
	expected: z.string().optional(),
	fixtures: textOrList.optional(),
});
const context = z.union([text, contextMap], {error: 'text or a mapping'});

/** What was tried, and which assumptions are confirmed or still provisional (the production "state snapshot"). */
const stateMap = z.looseObject({
	tried: textOrList.optional(),
	confirmed: textOrList.optional(),
	provisional: textOrList.optional(),
});
const state = z.union([text, stateMap], {error: 'text or a mapping'});

/** One who accepts: a duty, and the acceptance lines (numbered from 1) they accept; none named means every line. */
const acceptor = z.object({
	duty: z.string().trim().min(1).nullable().optional(),
	lines: z.array(z.number().int().min(1)).min(1).nullable().optional(),
});
export type Acceptor = z.infer<typeof acceptor>;

const acceptance = z.object({
	checks: lines,
	/** Name → duty and lines. Never the operator. None: the person who hands the work over accepts it. */
	acceptors: z.record(z.string(), acceptor).optional(),
});

const execution = z.object({
	operator: text.optional(),
	setup_command: text.optional(),
	test_command: text.optional(),
	permissions: text.optional(),
});

const delivery = z.looseObject({
	patch_revision: text.optional(),
	commands_and_results: text.optional(),
	sample_output: z.string().optional(),
	untested_cases: text.optional(),
});

/** Fields every kind may carry. */
const common = {
	title: text.optional(),
	context: context.optional(),
	state: state.optional(),
	constraints: textOrList.optional(),
	scope: z.object({allowed: textOrList.optional(), excluded: textOrList.optional()}).optional(),
	execution: execution.optional(),
	stop_when: lines.optional(),
	delivery: delivery.optional(),
	/** Markdown sections no field holds, kept as written (and scanned like every field). */
	sections: z.record(z.string(), z.string()).optional(),
	...production,
};

/** A piece of work to do: what is true when it is done, what exists, and lines to check it against. */
export const TaskContract = z.object({
	kind: z.literal('task'),
	...common,
	goal: text,
	acceptance,
	/** Kept so a person sees it; a task has no steps (a warning says so). */
	steps: lines.optional(),
});

/** A defect to fix: always "reproduce", never "steps". Without acceptance lines, `expected` is the line checked. */
export const BugContract = z.object({
	kind: z.literal('bug'),
	...common,
	problem: text,
	reproduce: lines,
	expected: text,
	hard_to_see: text,
	acceptance: acceptance.optional(),
});

/** A decision: the structured form, or a line of prose as people write it ("X over Y, because Z"). */
const decision = z.union([z.object({choice: text, over: text.optional(), why: text.optional()}), text], {
	error: 'text or a mapping (choice, over, why)',
});

/** Knowledge handed from one worker to the next. */
export const TransferContract = z.object({
	kind: z.literal('transfer'),
	...common,
	problem: text,
	solution_shape: text,
	decisions: z.array(decision).min(1),
	steps: lines,
	verification: lines,
	gotchas: listMayBeEmpty,
	/**
	 * Values to adapt, not copy: a mapping (name → how to adapt it, or the value as found) or a list
	 * of names or `name: how` items, as people write it.
	 */
	environment_specific: z
		.union(
			[
				z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
				z.array(z.union([text, z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]))])),
			],
			{error: 'a list or a mapping'},
		)
		.optional(),
	acceptance: acceptance.optional(),
});

/** The schema of each kind. */
export const KIND_SCHEMAS = {task: TaskContract, bug: BugContract, transfer: TransferContract} as const;

/** The one model: a contract of any kind, told apart by `kind`. */
export const Contract = z.discriminatedUnion('kind', [TaskContract, BugContract, TransferContract]);
export type Contract = z.infer<typeof Contract>;

/**
 * The lines a hand-in must bring evidence for: acceptance checks; a transfer without them answers
 * its verification, a bug without them its expected behaviour.
 */
export function acceptanceLines(contract: Contract): readonly string[] {
	if (contract.acceptance) return contract.acceptance.checks;
	if (contract.kind === 'transfer') return contract.verification;
	if (contract.kind === 'bug') return [contract.expected];
	return [];
}

/** Who accepts the work, by name, with their duty and lines, as the contract names them (canonical form). */
export function acceptorsOf(contract: Contract): Readonly<Record<string, Acceptor>> {
	return contract.acceptance?.acceptors ?? {};
}

/**
 * The acceptors as role → person, the form a claim recorded before acceptors had duties and lines:
 * a one-word duty is the role, anything else is named by the acceptor's name.
 */
export function acceptorRoles(acceptors: Readonly<Record<string, Acceptor>>): Record<string, string> {
	const roles: Record<string, string> = {};
	for (const [name, {duty}] of Object.entries(acceptors)) {
		const role = duty && /^[\w-]+$/.test(duty) && !(duty in roles) ? duty : name;
		roles[role] = name;
	}
	return roles;
}

/** Who does the work, when the contract names one. */
export function operatorOf(contract: Contract): string | null {
	return contract.execution?.operator ?? null;
}

/** The longest title made from a goal or problem when a contract has none. */
const DERIVED_TITLE_CHARS = 80;

/** The contract's title, or, for a shape without one (the portable five fields), the first line of its goal or problem. */
export function titleOf(contract: Contract): string {
	if (contract.title) return contract.title;
	const source = contract.kind === 'task' ? contract.goal : contract.problem;
	const first = source.split('\n')[0]?.trim() ?? source;
	return first.length > DERIVED_TITLE_CHARS ? `${first.slice(0, DERIVED_TITLE_CHARS - 1)}…` : first;
}

/** The structured context, when the context is written as a mapping. */
export function contextMapOf(contract: Contract): z.infer<typeof contextMap> | null {
	const value = contract.context;
	return value !== undefined && typeof value === 'object' ? value : null;
}

/** A field written as text or a list, always as a list. */
export function asList(value: string | readonly string[] | undefined): readonly string[] {
	if (value === undefined) return [];
	return typeof value === 'string' ? [value] : value;
}

/** The order fields are written in when a contract is shown or written in canonical form: what, where, how checked. */
const CANONICAL_ORDER = [
	'kind',
	'title',
	'goal',
	'problem',
	'solution_shape',
	'context',
	'state',
	'constraints',
	'scope',
	'reproduce',
	'expected',
	'hard_to_see',
	'decisions',
	'steps',
	'verification',
	'gotchas',
	'environment_specific',
	'execution',
	'acceptance',
	'stop_when',
	'delivery',
	'authority',
	'evidence',
	'guardrails',
	'trace',
	'escalation',
	'sections',
];

/** A copy of a contract document with its fields in the canonical order (others after, as they came). */
export function inCanonicalOrder<T extends object>(document: T): T {
	const entries = Object.entries(document);
	const rank = (key: string) => {
		const index = CANONICAL_ORDER.indexOf(key);
		return index === -1 ? CANONICAL_ORDER.length : index;
	};
	return Object.fromEntries(entries.sort(([a], [b]) => rank(a) - rank(b))) as T;
}
