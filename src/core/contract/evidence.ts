import * as z from 'zod';
import {credentialKeys, detectCredential, redactField} from './credentials.ts';
import {dropOptionalPlaceholders, PLACEHOLDER} from './placeholders.ts';
import {assertNever} from '../assert-never.ts';
import type {ContractProblem} from './problems.ts';
import {valueAt} from './rules.ts';

const text = z.string().trim().min(1);
/** A real exit code: an integer a process returned, never a guess or "unknown". */
const exitCode = z.number().int().min(0).max(255);
const lineNumber = z.number().int().min(1);
const count = z.number().int().min(0);

/** A command that ran, with its real exit code and what it printed. */
const commandEntry = z.object({check: lineNumber, command: text, exit_code: exitCode, output: z.string()});
/** A test run's summary: how many passed and failed (a line passes with none failed and some passed). */
const testsEntry = z.object({
	check: lineNumber,
	tests: z.object({passed: count, failed: count, skipped: count.optional()}),
	command: text.optional(),
	output: z.string().optional(),
});
/** A commit that does what the line asks (it must exist in the repository). */
const commitEntry = z.object({check: lineNumber, commit: text, note: z.string().optional()});
/** A pull request: its URL, `#123` or `owner/repo#123`. */
const pullRequestEntry = z.object({check: lineNumber, pull_request: text, note: z.string().optional()});
/** A screenshot file, kept by its content hash; a person marks it looked at (`controlroom looked`). */
const screenshotEntry = z.object({check: lineNumber, screenshot: text, note: z.string().optional()});

/** The kinds of evidence an `after` entry can be (docs/contracts.md, "Evidence kinds"). */
export const EVIDENCE_KINDS = ['command', 'tests', 'commit', 'pull_request', 'screenshot'] as const;
export type EvidenceKind = (typeof EVIDENCE_KINDS)[number];

const ENTRY_SCHEMAS = {
	command: commandEntry,
	tests: testsEntry,
	commit: commitEntry,
	pull_request: pullRequestEntry,
	screenshot: screenshotEntry,
} as const;

export type AfterEntry =
	| ({readonly kind: 'command'} & z.infer<typeof commandEntry>)
	| ({readonly kind: 'tests'} & z.infer<typeof testsEntry>)
	| ({readonly kind: 'commit'} & z.infer<typeof commitEntry>)
	| ({readonly kind: 'pull_request'} & z.infer<typeof pullRequestEntry>)
	| ({readonly kind: 'screenshot'} & z.infer<typeof screenshotEntry> & {readonly sha256?: string; readonly kept?: string});

/**
 * A hand-in's evidence file (docs/contracts.md, "Evidence and hand-in"): before, change, after per
 * acceptance line (a command, a test summary, a commit, a pull request or a screenshot),
 * uncertainty, review.
 */
export const Evidence = z.object({
	before: z.object({command: text, exit_code: exitCode, output: z.string().optional(), base_revision: z.string().optional()}),
	change: z.array(z.object({file: text, reason: text})).min(1),
	after: z.array(z.unknown()).min(1),
	/** Required even when empty: `[]` says "nothing uncertain", a missing key says nothing. */
	uncertainty: z.array(z.string()),
	/** The commit to review (the patch revision) and who accepts; `acceptor` may be left out only when the contract names nobody. */
	review: z.object({commit: text, acceptor: text.optional()}),
});
export type Evidence = Omit<z.infer<typeof Evidence>, 'after'> & {readonly after: readonly AfterEntry[]};

/**
 * The fields a template's placeholder may stay in (before.output, before.base_revision): the
 * evidence's optional ones, but review.acceptor, which is left out only when nobody is named, never
 * left as a placeholder.
 */
const OPTIONAL_WHEN_TEMPLATE = Evidence.extend({review: z.object({commit: text, acceptor: text})});

/** What a hand-in is judged against: the claim's acceptance lines and acceptors, recorded at take time. */
export type HandInTerms = {
	readonly checks: readonly string[];
	/** Role → person, as claims record them; empty when nobody is named yet. */
	readonly acceptors: Readonly<Record<string, string>>;
	readonly operator: string | null;
	/** The lines (from 1) whose evidence must be a screenshot. */
	readonly screenshots?: readonly number[];
	/** Who holds the claim: never its own acceptor. */
	readonly holder?: string | null;
};

/** What only the repository and the file system can answer about evidence; the handoff layer asks them. */
export type EvidenceFacts = {
	/** Whether a commit exists in the contract's repository. */
	commitExists?(revision: string): boolean;
	/** Reads and keeps a screenshot by its content hash, or says why it cannot. */
	keepScreenshot?(file: string): {readonly sha256: string; readonly kept: string} | {readonly problem: string};
};

export type EvidenceVerdict = {
	readonly evidence: Evidence | null;
	readonly problems: readonly ContractProblem[];
	/** Who accepts the hand-in: the evidence's review.acceptor, one of the contract's; null while nobody is named. */
	readonly acceptor: string | null;
};

function pathText(path: readonly PropertyKey[]): string {
	return (
		path.map((key, index) => (typeof key === 'number' ? `[${key}]` : `${index === 0 ? '' : '.'}${String(key)}`)).join('') ||
		'(document)'
	);
}

function scanCredentials(value: unknown, path: string, out: ContractProblem[]): void {
	if (typeof value === 'string') {
		const credential = detectCredential(
			value,
			path
				.split('.')
				.at(-1)
				?.replace(/\[\d+\]$/, '') ?? null,
		);
		if (credential !== null)
			out.push({
				severity: 'error',
				field: path,
				message: `looks like a credential (${credential}); remove it, the value is not shown`,
			});
	} else if (Array.isArray(value)) value.forEach((item, index) => scanCredentials(item, `${path}[${index}]`, out));
	else if (value !== null && typeof value === 'object') {
		for (const [key, child] of Object.entries(value)) {
			const childPath = path === '' ? key : `${path}.${key}`;
			if (detectCredential(key) !== null)
				out.push({
					severity: 'error',
					field: childPath,
					message: 'looks like a credential (a key); remove it, the value is not shown',
				});
			scanCredentials(child, childPath, out);
		}
	}
}

/** Every `<placeholder>` still in the evidence (a template not filled in), by field. */
function scanPlaceholders(value: unknown, path: string, out: ContractProblem[]): void {
	if (typeof value === 'string') {
		const placeholder = value.match(PLACEHOLDER);
		if (placeholder !== null)
			out.push({severity: 'error', field: path || '(document)', message: `unresolved placeholder ${placeholder[0]}`});
	} else if (Array.isArray(value)) value.forEach((item, index) => scanPlaceholders(item, `${path}[${index}]`, out));
	else if (value !== null && typeof value === 'object') {
		for (const [key, child] of Object.entries(value)) scanPlaceholders(child, path === '' ? key : `${path}.${key}`, out);
	}
}

function describeIssue(issue: z.core.$ZodIssue, document: unknown): string {
	const key = issue.path.at(-1);
	if (valueAt(document, issue.path) === undefined) {
		return key === 'uncertainty' ? 'required, even when empty (write uncertainty: [])' : 'required';
	}
	if (key === 'exit_code') return 'expected a real exit code (a whole number 0-255)';
	if (issue.code === 'invalid_type')
		return `expected ${issue.expected === 'string' ? 'text' : issue.expected === 'array' ? 'a list' : issue.expected === 'object' ? 'a mapping' : issue.expected}`;
	if (issue.code === 'too_small') return issue.origin === 'array' ? 'needs at least one entry' : 'must not be empty';
	return 'invalid';
}

/** Which kind an `after` entry is, by the key that says it. */
function entryKind(entry: unknown): EvidenceKind | null {
	if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return null;
	const keys = Object.keys(entry);
	if (keys.includes('screenshot')) return 'screenshot';
	if (keys.includes('pull_request')) return 'pull_request';
	if (keys.includes('tests')) return 'tests';
	if (keys.includes('command') || keys.includes('exit_code')) return 'command';
	if (keys.includes('commit')) return 'commit';
	return null;
}

const PULL_REQUEST = /^(?:https?:\/\/\S+\/(?:pull|merge_requests|pulls)\/\d+\S*|(?:[\w.-]+\/[\w.-]+)?#\d+|![0-9]+)$/;

/** Each `after` entry read by its kind; problems named `after[i].field`. */
function readAfter(entries: readonly unknown[], document: unknown, problems: ContractProblem[]): AfterEntry[] {
	const read: AfterEntry[] = [];
	entries.forEach((entry, index) => {
		const kind = entryKind(entry);
		if (kind === null) {
			problems.push({
				severity: 'error',
				field: `after[${index}]`,
				message:
					'expected one kind of evidence: a command (command, exit_code, output), tests: {passed, failed}, a commit, a pull_request, or a screenshot',
			});
			return;
		}
		const parsed = ENTRY_SCHEMAS[kind].safeParse(entry);
		if (!parsed.success) {
			for (const issue of parsed.error.issues)
				problems.push({
					severity: 'error',
					field: pathText(['after', index, ...issue.path]),
					message: describeIssue({...issue, path: ['after', index, ...issue.path]}, document),
				});
			return;
		}
		read.push({kind, ...parsed.data} as AfterEntry);
	});
	return read;
}

/** Whether an entry shows its line done: exit 0, no test failed, a commit that exists, a pull request, a screenshot kept. */
function passes(entry: AfterEntry, facts: EvidenceFacts): boolean {
	switch (entry.kind) {
		case 'command':
			return entry.exit_code === 0;
		case 'tests':
			return entry.tests.failed === 0 && entry.tests.passed > 0;
		case 'commit':
			return facts.commitExists?.(entry.commit) ?? true;
		case 'pull_request':
			return PULL_REQUEST.test(entry.pull_request.trim());
		case 'screenshot':
			return entry.sha256 !== undefined || facts.keepScreenshot === undefined;
		default:
			return assertNever(entry);
	}
}

/** Why the entries of a line do not show it done, in one clause. */
function whyNot(entry: AfterEntry): string {
	switch (entry.kind) {
		case 'command':
			return `exit ${entry.exit_code}`;
		case 'tests':
			return entry.tests.failed > 0 ? `${entry.tests.failed} failed` : 'no test passed';
		case 'commit':
			return `no commit ${entry.commit} in the repository`;
		case 'pull_request':
			return 'the pull request is not a URL, #N or owner/repo#N';
		case 'screenshot':
			return 'the screenshot was not kept';
		default:
			return assertNever(entry);
	}
}

/** Keeps each screenshot (content hash) through the facts; a file that cannot be kept is a problem naming it. */
function keepScreenshots(entries: readonly AfterEntry[], facts: EvidenceFacts, problems: ContractProblem[]): AfterEntry[] {
	return entries.map((entry, index) => {
		if (entry.kind !== 'screenshot' || facts.keepScreenshot === undefined) return entry;
		const kept = facts.keepScreenshot(entry.screenshot);
		if ('problem' in kept) {
			problems.push({severity: 'error', field: `after[${index}].screenshot`, message: kept.problem});
			return entry;
		}
		return {...entry, sha256: kept.sha256, kept: kept.kept};
	});
}

function lineProblems(evidence: Evidence, terms: HandInTerms, facts: EvidenceFacts): ContractProblem[] {
	const problems: ContractProblem[] = [];
	terms.checks.forEach((line, index) => {
		const number = index + 1;
		const entries = evidence.after.filter(entry => entry.check === number);
		if (entries.length === 0) {
			problems.push({severity: 'error', field: 'after', message: `no entry for acceptance line ${number} ("${line}")`});
		} else if (!entries.some(entry => passes(entry, facts))) {
			const failing = entries[0] as AfterEntry;
			problems.push({
				severity: 'error',
				field: 'after',
				message: `acceptance line ${number} did not pass (${whyNot(failing)}); pass the work back instead`,
			});
		}
		if ((terms.screenshots ?? []).includes(number) && !entries.some(entry => entry.kind === 'screenshot'))
			problems.push({
				severity: 'error',
				field: 'after',
				message: `acceptance line ${number} asks for a screenshot a person looks at: add {check: ${number}, screenshot: FILE}`,
			});
	});
	evidence.after.forEach((entry, index) => {
		if (entry.check > terms.checks.length) {
			problems.push({
				severity: 'error',
				field: `after[${index}].check`,
				message: `there is no acceptance line ${entry.check} (the contract has ${terms.checks.length})`,
			});
		}
	});
	return problems;
}

function reviewerProblems(evidence: Evidence, terms: HandInTerms): ContractProblem[] {
	const names = Object.values(terms.acceptors);
	const people = names.map(person => person.toLowerCase());
	const reviewer = evidence.review.acceptor?.toLowerCase() ?? null;
	if (reviewer !== null && terms.operator !== null && reviewer === terms.operator.toLowerCase())
		return [{severity: 'error', field: 'review.acceptor', message: 'is the operator; whoever did the work cannot accept it'}];
	if (reviewer !== null && terms.holder && reviewer === terms.holder.toLowerCase())
		return [{severity: 'error', field: 'review.acceptor', message: 'holds the claim; whoever did the work cannot accept it'}];
	// One acceptor and none written: that one (a person who named themselves need not be named again).
	if (people.length === 0 || (reviewer === null && people.length === 1)) return [];
	if (reviewer === null)
		return [{severity: 'error', field: 'review.acceptor', message: `required: name who accepts (one of ${names.join(', ')})`}];
	if (!people.includes(reviewer))
		return [
			{
				severity: 'error',
				field: 'review.acceptor',
				message: `is not an acceptor of the contract (${names.join(', ')})`,
			},
		];
	return [];
}

/**
 * Judges an evidence document against a claim's terms. Refused unless every acceptance line has an
 * `after` entry that shows it done (a command that exited 0, a test summary with none failed, a
 * commit, a pull request, a screenshot kept), a screenshot where the line asks for one,
 * `uncertainty` is present, and the reviewer is an acceptor (when the contract names any).
 */
export function checkEvidence(written: unknown, terms: HandInTerms, facts: EvidenceFacts = {}): EvidenceVerdict {
	const problems: ContractProblem[] = [];
	const secretKeys = credentialKeys(written);
	scanCredentials(written, '', problems);
	// Optional lines of the template (before.output, before.base_revision) may stay as placeholders.
	const document = dropOptionalPlaceholders(written, OPTIONAL_WHEN_TEMPLATE);
	scanPlaceholders(document, '', problems);
	for (const [index, problem] of problems.entries())
		problems[index] = {...problem, field: redactField(problem.field, secretKeys)};
	const parsed = Evidence.safeParse(document);
	if (!parsed.success) {
		for (const issue of parsed.error.issues) {
			problems.push({severity: 'error', field: pathText(issue.path), message: describeIssue(issue, document)});
		}
		const after = valueAt(document, ['after']);
		if (Array.isArray(after)) readAfter(after, document, problems);
		return {evidence: null, problems, acceptor: null};
	}
	const after = readAfter(parsed.data.after, document, problems);
	if (problems.length > 0) return {evidence: null, problems, acceptor: null};
	const evidence: Evidence = {...parsed.data, after: keepScreenshots(after, facts, problems)};
	problems.push(...lineProblems(evidence, terms, facts), ...reviewerProblems(evidence, terms));
	const names = Object.values(terms.acceptors);
	const reviewer = evidence.review.acceptor;
	const named =
		reviewer === undefined
			? names.length === 1
				? names[0]
				: undefined
			: names.find(person => person.toLowerCase() === reviewer.toLowerCase());
	return {evidence, problems, acceptor: named ?? null};
}
