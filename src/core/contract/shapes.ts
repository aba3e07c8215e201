import {readAcceptors} from './acceptors.ts';
import {CONTRACT_KINDS, type ContractKind} from './model.ts';
import {error, warning, type ContractProblem, type Origin} from './problems.ts';

/**
 * The shapes contracts are written in (docs/contracts.md, "Every shape, one model"): the canonical
 * YAML, the Markdown guide, the full YAML template (a `task:` line, acceptance by role), the
 * portable five fields, and the seven production fields. Each is read into the one model.
 */
export const CONTRACT_SHAPES = ['canonical', 'markdown', 'template', 'portable', 'production'] as const;
export type ContractShape = (typeof CONTRACT_SHAPES)[number];

/** How a problem line names a shape. */
export const SHAPE_NAMES: Readonly<Record<ContractShape, string>> = {
	canonical: 'the canonical YAML',
	markdown: 'the Markdown guide',
	template: 'the YAML template',
	portable: 'the portable five fields',
	production: 'the seven production fields',
};

/** A document read into canonical field names, with where each renamed field came from. */
export type ShapeReading = {
	readonly shape: ContractShape;
	readonly kind: ContractKind | null;
	/** The document with canonical names (values as written, acceptors in their canonical form). */
	readonly document: Record<string, unknown>;
	readonly origins: readonly Origin[];
	readonly problems: readonly ContractProblem[];
	/** `acceptance` was written as role → duty (the template's way): read as acceptors, with no lines to check. */
	readonly isAcceptanceByRole: boolean;
};

const isMapping = (value: unknown): value is Record<string, unknown> =>
	value !== null && typeof value === 'object' && !Array.isArray(value);

/** Names each shape uses for a canonical field: [written, canonical]. */
const TOP_LEVEL_NAMES: readonly (readonly [string, string])[] = [
	['outcome', 'goal'],
	['intent', 'goal'],
	['inputs', 'context'],
	['state_snapshot', 'state'],
	['authority_envelope', 'authority'],
	['evidence_bundle', 'evidence'],
	['guardrail_set', 'guardrails'],
	['trace_context', 'trace'],
	['escalation_plan', 'escalation'],
	['rollback', 'escalation'],
	['acceptance_criteria', 'acceptance'],
	['what_made_it_hard_to_see', 'hard_to_see'],
	['out_of_scope', 'scope.excluded'],
	['in_scope', 'scope.allowed'],
];

/** Names the portable shape and the template use inside context. */
const CONTEXT_NAMES: readonly (readonly [string, string])[] = [
	['revision', 'base_revision'],
	['base_commit', 'base_revision'],
	['commit', 'base_revision'],
	['repo', 'repository'],
];

/** The fields only one kind has: a file without `kind` that has only one kind's is read as that kind. */
const KIND_MARKERS: Readonly<Record<ContractKind, readonly string[]>> = {
	task: ['goal', 'constraints', 'stop_when', 'delivery'],
	bug: ['reproduce', 'hard_to_see', 'expected'],
	transfer: ['solution_shape', 'decisions', 'verification', 'gotchas', 'environment_specific', 'steps'],
};

/** Keys of `acceptance` itself; any other key is an acceptor written as role → duty. */
const ACCEPTANCE_KEYS = new Set(['checks', 'acceptors']);

function shapeOf(raw: Record<string, unknown>, format: 'yaml' | 'markdown'): ContractShape {
	if (format === 'markdown') return 'markdown';
	if (typeof raw['task'] === 'string') return 'template';
	if (raw['outcome'] !== undefined || raw['inputs'] !== undefined) return 'portable';
	if (raw['intent'] !== undefined || raw['state_snapshot'] !== undefined || raw['authority_envelope'] !== undefined)
		return 'production';
	return 'canonical';
}

/** Sets a dotted canonical path (`scope.excluded`) on the document, creating the mapping on the way. */
function setDotted(document: Record<string, unknown>, path: string, value: unknown): void {
	const keys = path.split('.');
	let node = document;
	for (const key of keys.slice(0, -1)) {
		if (!isMapping(node[key])) node[key] = {};
		node = node[key] as Record<string, unknown>;
	}
	node[keys.at(-1) as string] = value;
}

function getDotted(document: Record<string, unknown>, path: string): unknown {
	let node: unknown = document;
	for (const key of path.split('.')) node = isMapping(node) ? node[key] : undefined;
	return node;
}

function rename(
	document: Record<string, unknown>,
	names: readonly (readonly [string, string])[],
	prefix: string,
	origins: Origin[],
	problems: ContractProblem[],
): void {
	for (const [written, canonical] of names) {
		if (!(written in document)) continue;
		const value = document[written];
		delete document[written];
		const writtenPath = `${prefix}${written}`;
		if (getDotted(document, canonical) !== undefined) {
			problems.push(warning(writtenPath, `ignored: ${prefix}${canonical} is written too, and is what is read; delete one`));
			continue;
		}
		setDotted(document, canonical, value);
		origins.push([`${prefix}${canonical}`, writtenPath]);
	}
}

/** The kinds whose only-their-own fields the document has. */
function kindsByFields(document: Record<string, unknown>): ContractKind[] {
	return CONTRACT_KINDS.filter(kind => KIND_MARKERS[kind].some(field => document[field] !== undefined));
}

function kindOf(document: Record<string, unknown>, shape: ContractShape, problems: ContractProblem[]): ContractKind | null {
	const written = document['kind'];
	if (written !== undefined) {
		const kind = CONTRACT_KINDS.find(candidate => candidate === written) ?? null;
		if (kind === null) problems.push(error('kind', 'expected task | bug | transfer'));
		return kind;
	}
	const candidates =
		shape === 'template' || shape === 'portable' || shape === 'production' ? ['task' as const] : kindsByFields(document);
	const [only] = candidates;
	if (shape === 'canonical' || only === undefined || candidates.length > 1) {
		const hint =
			candidates.length === 1
				? `: its fields are a ${only}'s; add kind: ${only}`
				: candidates.length > 1
					? `: its fields fit ${candidates.join(' and ')}; say which (kind: ${candidates.join(' | ')})`
					: '';
		problems.push(error('kind', `required (task | bug | transfer)${hint}`));
		return null;
	}
	const why =
		shape === 'template'
			? 'the template names its task on a task: line'
			: shape === 'portable'
				? 'the portable five fields (outcome, scope, inputs, acceptance, stop_when) describe a task'
				: shape === 'production'
					? "its intent is a task's goal"
					: `only a ${only} has ${KIND_MARKERS[only].filter(field => document[field] !== undefined).join(', ')}`;
	problems.push(warning('kind', `not written: read as a ${only} (${why}); add kind: ${only} to say so`));
	document['kind'] = only;
	return only;
}

/** `acceptance` as a list of lines, one line, role → duty, or {checks, acceptors}: read into {checks, acceptors}. */
function readAcceptance(document: Record<string, unknown>, origins: Origin[], problems: ContractProblem[]): {isByRole: boolean} {
	const written = document['acceptance'];
	if (written === undefined || written === null) return {isByRole: false};
	const acceptanceOrigin = origins.find(origin => origin[0] === 'acceptance')?.[1] ?? 'acceptance';
	if (Array.isArray(written) || typeof written === 'string') {
		document['acceptance'] = {checks: Array.isArray(written) ? written : [written]};
		origins.push(['acceptance.checks', acceptanceOrigin]);
		return {isByRole: false};
	}
	if (!isMapping(written)) return {isByRole: false};
	const byRole = Object.fromEntries(Object.entries(written).filter(([key]) => !ACCEPTANCE_KEYS.has(key)));
	const isByRole = Object.keys(byRole).length > 0;
	const acceptance: Record<string, unknown> = {};
	if (written['checks'] !== undefined) acceptance['checks'] = written['checks'];
	const listed = readAcceptors(written['acceptors'], `${acceptanceOrigin}.acceptors`);
	const roles = readAcceptors(isByRole ? byRole : undefined, acceptanceOrigin);
	const acceptors = {...roles.acceptors, ...listed.acceptors};
	origins.push(...roles.origins, ...listed.origins);
	problems.push(...roles.problems, ...listed.problems);
	if (Object.keys(acceptors).length > 0 || written['acceptors'] !== undefined) acceptance['acceptors'] = acceptors;
	document['acceptance'] = acceptance;
	return {isByRole};
}

/** Evidence pointers written as bare strings become {pointer}. */
function readEvidence(document: Record<string, unknown>): void {
	const evidence = document['evidence'];
	if (typeof evidence === 'string') document['evidence'] = [{pointer: evidence}];
	else if (Array.isArray(evidence))
		document['evidence'] = evidence.map(item => (typeof item === 'string' ? {pointer: item} : item));
}

/**
 * Reads a parsed contract (YAML, or Markdown's front matter and sections) into canonical field names:
 * which shape it is, its kind (written, or, outside the canonical form, the only kind its fields
 * fit, with a warning), and where each renamed field came from. Pure: values are kept as written.
 */
export function readShape(raw: Record<string, unknown>, format: 'yaml' | 'markdown'): ShapeReading {
	const shape = shapeOf(raw, format);
	const document: Record<string, unknown> = structuredClone(raw);
	const origins: Origin[] = [];
	const problems: ContractProblem[] = [];
	if (typeof document['task'] === 'string') {
		const title = document['task'];
		delete document['task'];
		if (document['title'] === undefined) {
			document['title'] = title;
			origins.push(['title', 'task']);
		} else problems.push(warning('task', 'ignored: title is written too, and is what is read; delete one'));
	}
	rename(document, TOP_LEVEL_NAMES, '', origins, problems);
	if (isMapping(document['context'])) {
		const contextOrigin = origins.find(origin => origin[0] === 'context')?.[1] ?? 'context';
		const before = origins.length;
		rename(document['context'], CONTEXT_NAMES, 'context.', origins, problems);
		// Renamed inside a renamed context (inputs.revision): the written path keeps the written parent.
		for (let index = before; index < origins.length; index += 1) {
			const [canonical, written] = origins[index] as Origin;
			origins[index] = [canonical, written.replace(/^context\./, `${contextOrigin}.`)];
		}
	}
	readEvidence(document);
	const {isByRole} = readAcceptance(document, origins, problems);
	const kind = kindOf(document, shape, problems);
	if (kind === 'task' && document['steps'] !== undefined)
		problems.push(
			warning('steps', 'a task has no steps (its worker works out how): is this a transfer? The steps are kept as written'),
		);
	return {shape, kind, document, origins, problems, isAcceptanceByRole: isByRole};
}
