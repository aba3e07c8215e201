import * as z from 'zod';
import {credentialKeys, detectCredential, redactField} from './credentials.ts';
import {dropOptionalPlaceholders, PLACEHOLDER} from './placeholders.ts';
import {valueAt, type ContractProblem} from './rules.ts';

const text = z.string().trim().min(1);
/** A real exit code: an integer a process returned, never a guess or "unknown". */
const exitCode = z.number().int().min(0).max(255);

/**
 * A hand-in's evidence file (docs/contracts.md, "Evidence and hand-in"): before, change, after per
 * acceptance line, uncertainty, review.
 */
export const Evidence = z.object({
	before: z.object({command: text, exit_code: exitCode, output: z.string().optional(), base_revision: z.string().optional()}),
	change: z.array(z.object({file: text, reason: text})).min(1),
	after: z.array(z.object({check: z.number().int().min(1), command: text, exit_code: exitCode, output: z.string()})).min(1),
	/** Required even when empty: `[]` says "nothing uncertain", a missing key says nothing. */
	uncertainty: z.array(z.string()),
	review: z.object({commit: text, acceptor: text}),
});
export type Evidence = z.infer<typeof Evidence>;

/** What a hand-in is judged against: the claim's acceptance lines and acceptors, recorded at take time. */
export type HandInTerms = {
	readonly checks: readonly string[];
	readonly acceptors: Readonly<Record<string, string>>;
	readonly operator: string | null;
};

export type EvidenceVerdict = {readonly evidence: Evidence | null; readonly problems: readonly ContractProblem[]};

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

/**
 * Judges an evidence document against a claim's terms. Refused unless every acceptance line has an
 * `after` entry with a real exit code of 0, `uncertainty` is present, and the reviewer is an acceptor.
 */
export function checkEvidence(written: unknown, terms: HandInTerms): EvidenceVerdict {
	const problems: ContractProblem[] = [];
	const secretKeys = credentialKeys(written);
	scanCredentials(written, '', problems);
	// Optional lines of the template (before.output, before.base_revision) may stay as placeholders.
	const document = dropOptionalPlaceholders(written, Evidence);
	scanPlaceholders(document, '', problems);
	for (const [index, problem] of problems.entries())
		problems[index] = {...problem, field: redactField(problem.field, secretKeys)};
	const parsed = Evidence.safeParse(document);
	if (!parsed.success) {
		for (const issue of parsed.error.issues) {
			problems.push({severity: 'error', field: pathText(issue.path), message: describeIssue(issue, document)});
		}
		return {evidence: null, problems};
	}
	const evidence = parsed.data;
	terms.checks.forEach((line, index) => {
		const number = index + 1;
		const entries = evidence.after.filter(entry => entry.check === number);
		if (entries.length === 0) {
			problems.push({severity: 'error', field: 'after', message: `no entry for acceptance line ${number} ("${line}")`});
		} else if (!entries.some(entry => entry.exit_code === 0)) {
			problems.push({
				severity: 'error',
				field: 'after',
				message: `acceptance line ${number} did not pass (exit ${entries[0]?.exit_code}); pass the work back instead`,
			});
		}
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
	const people = Object.values(terms.acceptors).map(person => person.toLowerCase());
	const reviewer = evidence.review.acceptor.toLowerCase();
	if (terms.operator !== null && reviewer === terms.operator.toLowerCase()) {
		problems.push({
			severity: 'error',
			field: 'review.acceptor',
			message: 'is the operator; whoever did the work cannot accept it',
		});
	} else if (people.length > 0 && !people.includes(reviewer)) {
		problems.push({
			severity: 'error',
			field: 'review.acceptor',
			message: `is not an acceptor of the contract (${Object.values(terms.acceptors).join(', ')})`,
		});
	}
	return {evidence, problems};
}
