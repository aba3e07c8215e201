import type {z} from 'zod';
import {commandRequirement, describeRequirement, type CommandRequirement} from './commands.ts';
import {credentialKeys, detectCredential, redactField} from './credentials.ts';
import {dropOptionalPlaceholders, PLACEHOLDER} from './placeholders.ts';
import {BugContract, CONTRACT_KINDS, TaskContract, TransferContract, type Contract, type ContractKind} from './model.ts';

/** One finding about a contract, always naming the field it is about. */
export type ContractProblem = {
	readonly severity: 'error' | 'warning';
	/** Dotted path of the field, e.g. `context.base_revision` or `acceptance.checks[0]`. */
	readonly field: string;
	/** What is wrong. Never contains a credential's value. */
	readonly message: string;
};

/** What only the repository can answer; the handoff layer asks git and the file system. */
export type RepositoryFacts = {
	/**
	 * Whether the repository can be examined here. `unmapped`: a contract written from afar names a
	 * repository this host has no checkout of (docs/serve.md, "Repositories"); it is checked where it runs.
	 */
	repository(repository: string): 'ok' | 'missing' | 'not-git' | 'remote' | 'unmapped';
	revisionExists(repository: string, revision: string): boolean;
	defines(repository: string, requirement: CommandRequirement): boolean;
};

export type ContractVerdict = {
	readonly kind: ContractKind | null;
	/** The parsed contract, when the model accepts it (even if other rules reject it). */
	readonly contract: Contract | null;
	readonly problems: readonly ContractProblem[];
	/** True when no problem is an error; warnings do not invalidate. */
	readonly isValid: boolean;
};

type Leaf = {readonly path: string; readonly key: string | null; readonly value: string};

function joinPath(parent: string, key: string | number): string {
	if (typeof key === 'number') return `${parent}[${key}]`;
	return parent === '' ? key : `${parent}.${key}`;
}

/** Every string (and scalar) in the document with its path, for the placeholder and credential rules. */
function leaves(value: unknown, path = '', key: string | null = null, out: Leaf[] = []): Leaf[] {
	if (typeof value === 'string') out.push({path, key, value});
	else if (typeof value === 'number' || typeof value === 'bigint') out.push({path, key, value: String(value)});
	else if (Array.isArray(value)) value.forEach((item, index) => leaves(item, joinPath(path, index), key, out));
	else if (value !== null && typeof value === 'object') {
		for (const [childKey, child] of Object.entries(value)) {
			// A key can carry a secret or a placeholder too (`"sk-...": note`); test it with the same rules.
			out.push({path: joinPath(path, childKey), key: null, value: childKey});
			leaves(child, joinPath(path, childKey), childKey, out);
		}
	}
	return out;
}

/** The value at a zod issue path inside a parsed document, or undefined. */
export function valueAt(document: unknown, path: readonly PropertyKey[]): unknown {
	let current: unknown = document;
	for (const key of path) {
		if (current === null || typeof current !== 'object') return undefined;
		current = (current as Record<PropertyKey, unknown>)[key];
	}
	return current;
}

function pathText(path: readonly PropertyKey[]): string {
	return path.reduce<string>((text, key) => joinPath(text, typeof key === 'number' ? key : String(key)), '');
}

/** What a value is, in the words of someone writing YAML or Markdown. */
function kindOfValue(value: unknown): string {
	if (Array.isArray(value)) return 'a list';
	if (value === null) return 'nothing';
	if (typeof value === 'string') return 'text';
	if (typeof value === 'number' || typeof value === 'bigint') return 'a number';
	if (typeof value === 'boolean') return 'true/false';
	return typeof value === 'object' ? 'a mapping' : 'something else';
}

/** What a schema wants, in the same words (never zod's "record" or "array"). */
function wanted(expected: string): string {
	switch (expected) {
		case 'string':
			return 'text';
		case 'array':
			return 'a list';
		case 'object':
		case 'record':
		case 'map':
			return 'a mapping (key: value lines)';
		case 'number':
		case 'int':
			return 'a number';
		case 'boolean':
			return 'true or false';
		default:
			return expected;
	}
}

function describeIssue(issue: z.core.$ZodIssue, document: unknown): string {
	const present = valueAt(document, issue.path);
	switch (issue.code) {
		case 'invalid_type': {
			if (present === undefined || present === null) return 'required';
			const hint = issue.expected === 'string' && typeof present === 'number' ? ' (put it in quotes)' : '';
			return `expected ${wanted(issue.expected)}, not ${kindOfValue(present)}${hint}`;
		}
		case 'too_small':
			return issue.origin === 'array' ? `needs at least ${String(issue.minimum)} item(s)` : 'must not be empty';
		case 'invalid_value':
			return `expected ${issue.values.map(value => JSON.stringify(value)).join(' | ')}`;
		case 'invalid_union':
			// Our unions name what they take ('a list or a mapping'); zod's default says nothing useful.
			return issue.message === 'Invalid input'
				? 'not in the expected form'
				: `expected ${issue.message}, not ${kindOfValue(present)}`;
		case 'custom':
			return issue.message;
		case 'too_big':
		case 'invalid_format':
		case 'not_multiple_of':
		case 'unrecognized_keys':
		case 'invalid_key':
		case 'invalid_element':
			return 'not in the expected form';
	}
}

const SCHEMAS = {task: TaskContract, bug: BugContract, transfer: TransferContract} as const;

const VAGUE = [
	/\bworks?\s+(?:correctly|properly|fine|well|as (?:expected|intended))\b/i,
	/\bis\s+(?:improved|better|faster|cleaner|fixed|handled)\b/i,
	/\bshould\s+work\b/i,
	/\blooks?\s+(?:good|right|fine)\b/i,
	/\bno\s+(?:more\s+)?(?:issues|problems|bugs|errors)\b/i,
	/^\s*(?:done|fixed|working)\s*\.?\s*$/i,
];

function record(document: unknown, key: string): Record<string, unknown> | undefined {
	const value = valueAt(document, [key]);
	return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function stringAt(document: unknown, path: readonly string[]): string | undefined {
	const value = valueAt(document, path);
	return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function acceptorProblems(document: unknown): ContractProblem[] {
	const operator = stringAt(document, ['execution', 'operator']);
	const acceptors = record(record(document, 'acceptance'), 'acceptors');
	if (operator === undefined || acceptors === undefined) return [];
	return Object.entries(acceptors)
		.filter(([, person]) => typeof person === 'string' && person.trim().toLowerCase() === operator.toLowerCase())
		.map(([role]) => ({
			severity: 'error' as const,
			field: `acceptance.acceptors.${role}`,
			message: 'is the operator (execution.operator); whoever does the work cannot accept it',
		}));
}

function repositoryProblems(document: unknown, facts: RepositoryFacts, flagged: ReadonlySet<string>): ContractProblem[] {
	const repository = stringAt(document, ['context', 'repository']);
	if (repository === undefined || flagged.has('context.repository')) return [];
	const state = facts.repository(repository);
	if (state === 'missing') return [{severity: 'error', field: 'context.repository', message: 'no such directory'}];
	if (state === 'not-git') return [{severity: 'error', field: 'context.repository', message: 'is not a git repository'}];
	if (state === 'unmapped') {
		return [
			{
				severity: 'warning',
				field: 'context.repository',
				message: 'has no checkout on this host (repositories.json): base revision and commands are checked where pickup runs it',
			},
		];
	}
	if (state === 'remote') {
		return [
			{severity: 'warning', field: 'context.repository', message: 'is remote: base revision and commands were not checked'},
		];
	}
	const problems: ContractProblem[] = [];
	const revision = stringAt(document, ['context', 'base_revision']);
	if (revision !== undefined && !flagged.has('context.base_revision') && !facts.revisionExists(repository, revision)) {
		problems.push({severity: 'error', field: 'context.base_revision', message: 'no such commit in the repository'});
	}
	for (const key of ['setup_command', 'test_command']) {
		const field = `execution.${key}`;
		const command = stringAt(document, ['execution', key]);
		if (command === undefined || flagged.has(field)) continue;
		const requirement = commandRequirement(command);
		if (requirement !== null && !facts.defines(repository, requirement)) {
			problems.push({
				severity: 'error',
				field,
				message: `the repository does not define it: expected ${describeRequirement(requirement)}`,
			});
		}
	}
	return problems;
}

function vagueWarnings(document: unknown): ContractProblem[] {
	const checks = valueAt(document, ['acceptance', 'checks']);
	if (!Array.isArray(checks)) return [];
	return checks.flatMap((line, index) =>
		typeof line === 'string' && VAGUE.some(pattern => pattern.test(line))
			? [
					{
						severity: 'warning' as const,
						field: `acceptance.checks[${index}]`,
						message: 'vague: say what a person or a script can check',
					},
				]
			: [],
	);
}

/**
 * Checks a parsed contract document against the model and every rule of docs/contracts.md, "`contract check`". Pure: what
 * needs git or the file system is asked through `facts`. Messages never quote a field's value.
 */
export function checkContract(written: unknown, facts: RepositoryFacts): ContractVerdict {
	const problems: ContractProblem[] = [];
	const rawKind = valueAt(written, ['kind']);
	const kind = CONTRACT_KINDS.find(candidate => candidate === rawKind) ?? null;
	// Optional fields left as the template's placeholder read as absent; required ones stay and are flagged.
	const document = kind === null ? written : dropOptionalPlaceholders(written, SCHEMAS[kind]);
	if (document === null || typeof document !== 'object' || Array.isArray(document)) {
		return {
			kind: null,
			contract: null,
			problems: [{severity: 'error', field: '(document)', message: 'expected a mapping of fields'}],
			isValid: false,
		};
	}
	if (kind === null) {
		problems.push({
			severity: 'error',
			field: 'kind',
			message: rawKind === undefined ? 'required (task | bug | transfer)' : 'expected task | bug | transfer',
		});
	}
	if (kind === 'bug' && valueAt(document, ['steps']) !== undefined) {
		problems.push({severity: 'error', field: 'steps', message: 'a bug says "Reproduce", never "Steps": rename it to reproduce'});
	}
	let contract: Contract | null = null;
	if (kind !== null) {
		const parsed = SCHEMAS[kind].safeParse(document);
		if (parsed.success) contract = parsed.data;
		else
			for (const issue of parsed.error.issues)
				problems.push({severity: 'error', field: pathText(issue.path) || '(document)', message: describeIssue(issue, document)});
	}
	const flagged = new Set<string>();
	for (const leaf of leaves(document)) {
		const placeholder = leaf.value.match(PLACEHOLDER);
		const credential = detectCredential(leaf.value, leaf.key);
		if (credential !== null) {
			flagged.add(leaf.path);
			problems.push({
				severity: 'error',
				field: leaf.path,
				message: `looks like a credential (${credential}); remove it, the value is not shown`,
			});
		} else if (placeholder !== null) {
			flagged.add(leaf.path);
			problems.push({severity: 'error', field: leaf.path, message: `unresolved placeholder ${placeholder[0]}`});
		}
	}
	problems.push(...acceptorProblems(document), ...repositoryProblems(document, facts, flagged), ...vagueWarnings(document));
	const secretKeys = credentialKeys(document);
	const safe = problems.map(problem => ({...problem, field: redactField(problem.field, secretKeys)}));
	const unique = [...new Map(safe.map(problem => [`${problem.field}\u0000${problem.message}`, problem])).values()];
	return {kind, contract, problems: unique, isValid: unique.every(problem => problem.severity !== 'error')};
}
