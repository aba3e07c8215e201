import type {z} from 'zod';
import {commandRequirement, describeRequirement, tripwireOf, type CommandRequirement} from './commands.ts';
import {credentialKeys, detectCredential, redactField, WITHHELD_VALUE, withoutCredentials} from './credentials.ts';
import {guessesOf, wordingWarnings, type Guess} from './markers.ts';
import {KIND_SCHEMAS, type Contract, type ContractKind} from './model.ts';
import {PLACEHOLDER} from './placeholders.ts';
import {pointerOf} from './pointers.ts';
import {NO_POLICY, policyProblems, type ReceiverPolicy} from './policy.ts';
import {error, joinPath, uniqueProblems, warning, writtenPath, type ContractProblem, type Origin} from './problems.ts';
import {pathPatterns} from './scope.ts';
import {readShape, SHAPE_NAMES, type ContractShape} from './shapes.ts';

export type {ContractProblem} from './problems.ts';

/** What only the repository can answer; the handoff layer asks git and the file system. */
export type RepositoryFacts = {
	/**
	 * Whether the repository can be examined here. `unmapped`: a contract written from afar names a
	 * repository this host has no checkout of (docs/serve.md, "Repositories"); it is checked where it runs.
	 */
	repository(repository: string): 'ok' | 'missing' | 'not-git' | 'remote' | 'unmapped';
	revisionExists(repository: string, revision: string): boolean;
	defines(repository: string, requirement: CommandRequirement): boolean;
	/** The repository the contract sits in, for a contract that names none (null: none, or unknown). */
	defaultRepository?(): string | null;
	/** The newest commit after `base` (to HEAD) that changed one of `paths`, and one file it changed. */
	newestChange?(
		repository: string,
		base: string,
		paths: readonly string[],
	): {readonly commit: string; readonly file: string} | null;
	/** Whether a repository-relative path is a file or folder inside the repository. */
	fileInRepository?(repository: string, path: string): 'yes' | 'missing' | 'outside';
};

export type ContractVerdict = {
	readonly kind: ContractKind | null;
	/** The parsed contract, when the model accepts it (even if other rules reject it). */
	readonly contract: Contract | null;
	readonly problems: readonly ContractProblem[];
	/** True when no problem is an error; warnings do not invalidate. */
	readonly isValid: boolean;
	/** The shape the file was read as. */
	readonly shape: ContractShape | null;
	/** The document in canonical field names, as read (also when the model refuses it): what `normalize` writes. */
	readonly canonical: Record<string, unknown> | null;
	/** Values the writer marked as guesses, and provisional assumptions: the agent checks these first. */
	readonly guesses: readonly Guess[];
};

export type CheckOptions = {
	/** How the document was written: Markdown reads its sections' shape; YAML its fields' names. */
	readonly format?: 'yaml' | 'markdown';
	/** What the receiver requires beyond each kind's needs (docs/contracts.md, "The receiver's policy"). */
	readonly policy?: ReceiverPolicy;
};

type Leaf = {readonly path: string; readonly key: string | null; readonly value: string};

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

/** What each field a kind needs holds, for the line that asks for it. */
const WHAT: Readonly<Record<string, string>> = {
	goal: 'what is true when the work is done, in a sentence or two',
	acceptance: 'lines a person or a script can check (a list under acceptance)',
	'acceptance.checks': 'the lines a person or a script can check',
	problem: 'what was actually wrong, or what goes wrong',
	reproduce: 'how to see it, as a list (a bug says reproduce, never steps)',
	expected: 'what should happen instead',
	hard_to_see: 'what made it hard to see',
	solution_shape: 'the approach, not the diff',
	decisions: 'what was chosen over what, and why (a list)',
	steps: 'what to do, as a list',
	verification: 'how to know it worked, as a list',
	gotchas: 'what failed along the way, as a list (gotchas: [] when nothing did)',
	'decisions[].choice': 'what was chosen',
};

/** The line for a field the kind needs and the file lacks: what to add, in the shape it was read as. */
function requiredMessage(field: string, kind: ContractKind, reading: {shape: ContractShape; isByRole: boolean}): string {
	if (field === 'goal' && reading.shape === 'template')
		return `required for a task: ${SHAPE_NAMES.template} has no goal (its task: line is read as the title); add goal: ${WHAT['goal']}`;
	if (field === 'acceptance.checks' && reading.isByRole)
		return 'required: acceptance is written as role → duty: read as acceptors; add the lines a person or a script can check under acceptance.checks';
	const what = WHAT[field.replace(/\[\d+\]/g, '[]')];
	return what === undefined ? 'required' : `required for a ${kind}: add ${field.replace(/\[\d+\]/g, '')}: ${what}`;
}

function describeIssue(issue: z.core.$ZodIssue, document: unknown, requiredLine: (field: string) => string): string {
	const present = valueAt(document, issue.path);
	switch (issue.code) {
		case 'invalid_type': {
			if (present === undefined || present === null) return requiredLine(pathText(issue.path));
			const hint = issue.expected === 'string' && typeof present === 'number' ? ' (put it in quotes)' : '';
			return `expected ${wanted(issue.expected)}, not ${kindOfValue(present)}${hint}`;
		}
		case 'too_small':
			return issue.origin === 'array' ? `needs at least ${String(issue.minimum)} item(s)` : 'must not be empty';
		case 'invalid_value':
			return `expected ${issue.values.map(value => JSON.stringify(value)).join(' | ')}`;
		case 'invalid_union':
			// Our unions name what they take ('a list or a mapping'); zod's default says nothing useful.
			if (present === undefined || present === null) return requiredLine(pathText(issue.path));
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

/**
 * A union's issue, said about what is wrong inside the value: a mapping written where text or a
 * mapping is taken is judged as a mapping (`context.fixtures: expected text or a list`).
 */
function expandUnions(issues: readonly z.core.$ZodIssue[], document: unknown): z.core.$ZodIssue[] {
	return issues.flatMap(issue => {
		if (issue.code !== 'invalid_union' || issue.errors.length === 0) return [issue];
		const present = valueAt(document, issue.path);
		if (present === undefined || present === null) return [issue];
		// The branch that got past the value's own type (its issues are about what is inside) says what is wrong.
		const inner = issue.errors.find(branch => branch.length > 0 && branch.every(nested => nested.path.length > 0));
		if (inner === undefined) return [issue];
		return expandUnions(
			inner.map(nested => ({...nested, path: [...issue.path, ...nested.path]})),
			document,
		);
	});
}

const isMapping = (value: unknown): value is Record<string, unknown> =>
	value !== null && typeof value === 'object' && !Array.isArray(value);

function stringAt(document: unknown, path: readonly string[]): string | undefined {
	const value = valueAt(document, path);
	return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** Acceptors who are the operator, and lines no acceptor accepts (canonical paths). */
function acceptorProblems(document: Record<string, unknown>): ContractProblem[] {
	const acceptors = valueAt(document, ['acceptance', 'acceptors']);
	if (!isMapping(acceptors)) return [];
	const problems: ContractProblem[] = [];
	const operator = stringAt(document, ['execution', 'operator']);
	const checks = valueAt(document, ['acceptance', 'checks']);
	const count = Array.isArray(checks) ? checks.length : 0;
	let isEveryLineCovered = false;
	const covered = new Set<number>();
	for (const [name, entry] of Object.entries(acceptors)) {
		const field = `acceptance.acceptors.${name}`;
		if (operator !== undefined && name.trim().toLowerCase() === operator.toLowerCase())
			problems.push(error(field, 'is the operator (execution.operator); whoever does the work cannot accept it'));
		const lines = isMapping(entry) && Array.isArray(entry['lines']) ? (entry['lines'] as unknown[]) : null;
		if (lines === null) isEveryLineCovered = true;
		for (const line of lines ?? []) {
			if (typeof line !== 'number') continue;
			covered.add(line);
			if (count > 0 && line > count)
				problems.push(
					error(`${field}.lines`, `there is no acceptance line ${line} (the contract has ${count}); number lines from 1`),
				);
		}
	}
	if (!isEveryLineCovered && count > 0 && Object.keys(acceptors).length > 0) {
		for (let line = 1; line <= count; line += 1)
			if (!covered.has(line))
				problems.push(
					error(
						'acceptance.acceptors',
						`no acceptor accepts acceptance line ${line}: add it to someone's lines, or leave lines out to mean every line`,
					),
				);
	}
	return problems;
}

/** The repository the contract's checks run against: the one it names, else the one it sits in. */
function repositoryOf(document: Record<string, unknown>, facts: RepositoryFacts): {name: string; isNamed: boolean} | null {
	const named = isMapping(document['context']) ? stringAt(document['context'], ['repository']) : undefined;
	if (named !== undefined) return {name: named, isNamed: true};
	const fallback = facts.defaultRepository?.() ?? null;
	return fallback === null ? null : {name: fallback, isNamed: false};
}

type RepositoryCheck = {
	readonly document: Record<string, unknown>;
	readonly facts: RepositoryFacts;
	/** Fields already flagged (a placeholder, a credential): not asked about. */
	readonly flagged: ReadonlySet<string>;
	readonly policy: ReceiverPolicy;
	readonly origins: readonly Origin[];
};

function staleProblem(check: RepositoryCheck, repository: string, revision: string): ContractProblem[] {
	const {document, facts, policy} = check;
	if (facts.newestChange === undefined) return [];
	const scopeEntries = [valueAt(document, ['scope', 'allowed']), valueAt(document, ['authority', 'may_write'])].flatMap(value =>
		typeof value === 'string'
			? [value]
			: Array.isArray(value)
				? value.filter((item): item is string => typeof item === 'string')
				: [],
	);
	const paths = [...new Set(pathPatterns(scopeEntries))];
	if (paths.length === 0) return [];
	const newer = facts.newestChange(repository, revision, paths);
	if (newer === null) return [];
	const message = `stale: ${revision} is older than ${newer.commit}, which changed ${newer.file} (in scope): ask for a refresh (a new base revision, and the state as of it)`;
	return [policy.requires.has('state') ? error('context.base_revision', message) : warning('context.base_revision', message)];
}

function commandProblems(check: RepositoryCheck, repository: string): ContractProblem[] {
	const problems: ContractProblem[] = [];
	for (const key of ['setup_command', 'test_command']) {
		const field = `execution.${key}`;
		const command = stringAt(check.document, ['execution', key]);
		if (command === undefined || check.flagged.has(writtenPath(field, check.origins))) continue;
		const requirement = commandRequirement(command);
		if (requirement !== null && !check.facts.defines(repository, requirement))
			problems.push(error(field, `the repository does not define it: expected ${describeRequirement(requirement)}`));
	}
	return problems;
}

function tripwireProblems(check: RepositoryCheck, repository: string | null): ContractProblem[] {
	const tripwires = valueAt(check.document, ['guardrails', 'tripwires']);
	if (!Array.isArray(tripwires)) return [];
	const problems: ContractProblem[] = [];
	tripwires.forEach((text, index) => {
		const field = `guardrails.tripwires[${index}]`;
		if (typeof text !== 'string' || check.flagged.has(writtenPath(field, check.origins))) return;
		const tripwire = tripwireOf(text);
		if (!tripwire.isRunnable) {
			// A condition in words is for the agent to watch; only a receiver that requires guardrails is told it is not run.
			if (check.policy.requires.has('guardrails') || tripwire.why.startsWith('has arguments'))
				problems.push(warning(field, `not run: ${tripwire.why}; the agent is told to stop on it`));
			return;
		}
		if (repository !== null && !check.facts.defines(repository, tripwire.requirement))
			problems.push(
				error(
					field,
					`the repository does not define it: expected ${describeRequirement(tripwire.requirement)}; a tripwire runs only what the repository defines`,
				),
			);
	});
	return problems;
}

function evidenceProblems(check: RepositoryCheck, repository: string | null): ContractProblem[] {
	if (!check.policy.requires.has('evidence')) return [];
	const evidence = valueAt(check.document, ['evidence']);
	if (!Array.isArray(evidence)) return [];
	const problems: ContractProblem[] = [];
	evidence.forEach((item, index) => {
		const field = `evidence[${index}].pointer`;
		const written = isMapping(item) ? item['pointer'] : undefined;
		if (typeof written !== 'string' || check.flagged.has(writtenPath(field, check.origins))) return;
		const pointer = pointerOf(written);
		if (pointer.kind === 'prose')
			problems.push(error(field, 'is prose, not a pointer: point at a file in the repository, a commit or a URL'));
		else if (pointer.kind === 'url' && !pointer.isValid) problems.push(error(field, 'is not a valid http(s) URL'));
		else if (repository === null) {
			if (pointer.kind !== 'url')
				problems.push(error(field, 'cannot be resolved: no repository is known (name context.repository)'));
		} else if (pointer.kind === 'commit' && !check.facts.revisionExists(repository, pointer.revision))
			problems.push(error(field, 'does not resolve: no such commit in the repository'));
		else if (pointer.kind === 'file' && check.facts.fileInRepository !== undefined) {
			const found = check.facts.fileInRepository(repository, pointer.path);
			if (found === 'missing') problems.push(error(field, 'does not resolve: no such file in the repository'));
			if (found === 'outside') problems.push(error(field, 'points outside the repository'));
		}
	});
	return problems;
}

function repositoryProblems(check: RepositoryCheck): ContractProblem[] {
	const {document, facts, flagged, origins} = check;
	const repository = repositoryOf(document, facts);
	if (repository === null) return tripwireProblems(check, null).concat(evidenceProblems(check, null));
	if (repository.isNamed && flagged.has(writtenPath('context.repository', origins))) return [];
	const state = facts.repository(repository.name);
	if (state === 'missing') return [error('context.repository', 'no such directory')];
	if (state === 'not-git') return [error('context.repository', 'is not a git repository')];
	if (state === 'remote') return [warning('context.repository', 'is remote: base revision and commands were not checked')];
	if (state === 'unmapped')
		return [
			warning(
				'context.repository',
				'has no checkout on this host (repositories.json): base revision and commands are checked where pickup runs it',
			),
		];
	const problems: ContractProblem[] = [];
	const revision = isMapping(document['context']) ? stringAt(document['context'], ['base_revision']) : undefined;
	if (revision !== undefined && !flagged.has(writtenPath('context.base_revision', origins))) {
		if (!facts.revisionExists(repository.name, revision))
			problems.push(error('context.base_revision', 'no such commit in the repository'));
		else problems.push(...staleProblem(check, repository.name, revision));
	}
	problems.push(...commandProblems(check, repository.name), ...tripwireProblems(check, repository.name));
	problems.push(...evidenceProblems(check, repository.name));
	return problems;
}

/** `(document)`: something that is not a mapping of fields. */
function notAMapping(): ContractVerdict {
	return {
		kind: null,
		contract: null,
		problems: [error('(document)', 'expected a mapping of fields')],
		isValid: false,
		shape: null,
		canonical: null,
		guesses: [],
	};
}

/** A value with its inline code spans (`...`) left out: `<Button>` in code is code, not a placeholder. */
const withoutCode = (value: string): string => value.replace(/`[^`\n]*`/g, '');

/** Placeholders and credentials anywhere in the file as written, keys included (paths as written). */
function scanLeaves(written: unknown, problems: ContractProblem[]): Set<string> {
	const flagged = new Set<string>();
	for (const leaf of leaves(written)) {
		const credential = detectCredential(leaf.value, leaf.key);
		const placeholder = credential === null ? withoutCode(leaf.value).match(PLACEHOLDER) : null;
		if (credential !== null) {
			flagged.add(leaf.path);
			problems.push(error(leaf.path, `looks like a credential (${credential}); remove it, the value is not shown`));
		} else if (placeholder !== null) {
			flagged.add(leaf.path);
			problems.push(error(leaf.path, `unresolved placeholder ${placeholder[0]}`));
		}
	}
	return flagged;
}

/** A task says where the work is: prose or structured context, or a state snapshot. */
function kindProblems(kind: ContractKind, document: Record<string, unknown>): ContractProblem[] {
	if (kind === 'bug' && document['steps'] !== undefined)
		return [error('steps', 'a bug says "Reproduce", never "Steps": rename it to reproduce')];
	if (kind === 'transfer' && document['environment_specific'] === undefined)
		return [
			warning(
				'environment_specific',
				'not written: list what depends on the original environment (a path, a version, a service name) so the receiver adapts it instead of copying it; environment_specific: [] when nothing does',
			),
		];
	if (kind === 'task' && document['context'] === undefined && document['state'] === undefined)
		return [
			error(
				'context',
				'required for a task: say where the code is and what already exists (prose, or repository and base_revision)',
			),
		];
	return [];
}

/**
 * Checks a parsed contract document against the model and every rule of docs/contracts.md,
 * "`contract check`": reads its shape into canonical names, checks the kind's needs, the
 * receiver's policy, and (through `facts`) the repository. Pure: git and the file system are asked
 * through `facts`. Messages never quote a field's value; each names the field as written.
 */
export function checkContract(written: unknown, facts: RepositoryFacts, options: CheckOptions = {}): ContractVerdict {
	if (!isMapping(written)) return notAMapping();
	const policy = options.policy ?? NO_POLICY;
	const reading = readShape(written, options.format ?? 'yaml');
	const {document, kind, origins} = reading;
	const written_: ContractProblem[] = [];
	const flagged = scanLeaves(written, written_);
	// Problems about canonical fields, named as written afterwards.
	const canonical: ContractProblem[] = [];
	let contract: Contract | null = null;
	if (kind !== null) {
		canonical.push(...kindProblems(kind, document));
		const parsed = KIND_SCHEMAS[kind].safeParse(document);
		const requiredLine = (field: string) =>
			requiredMessage(field, kind, {shape: reading.shape, isByRole: reading.isAcceptanceByRole});
		if (parsed.success) contract = parsed.data as Contract;
		else
			for (const issue of expandUnions(parsed.error.issues, document))
				canonical.push(error(pathText(issue.path) || '(document)', describeIssue(issue, document, requiredLine)));
	}
	canonical.push(...acceptorProblems(document));
	const checks = valueAt(document, ['acceptance', 'checks']);
	const lines = Array.isArray(checks) ? checks.filter((line): line is string => typeof line === 'string') : [];
	canonical.push(...wordingWarnings(document, lines, 'acceptance.checks'));
	canonical.push(...repositoryProblems({document, facts, flagged, policy, origins}));
	if (contract !== null) canonical.push(...policyProblems(contract, policy));
	const secretKeys = credentialKeys(written);
	const all = [
		...reading.problems,
		...written_,
		...canonical.map(problem => ({...problem, field: writtenPath(problem.field, origins)})),
	].map(problem => ({...problem, field: redactField(problem.field, secretKeys)}));
	// A field flagged for its placeholder or credential is not also told it is vague or tool-specific.
	const problems = uniqueProblems(all).filter(problem => problem.severity === 'error' || !flagged.has(problem.field));
	return {
		kind,
		contract,
		problems,
		isValid: problems.every(problem => problem.severity !== 'error'),
		shape: reading.shape,
		// What is shown of the document never holds a secret: a credential's value is withheld.
		canonical: withoutCredentials(document) as Record<string, unknown>,
		guesses: (contract === null ? [] : guessesOf(contract)).map(guess =>
			detectCredential(guess.text) === null ? guess : {...guess, text: WITHHELD_VALUE},
		),
	};
}
