import {createHash} from 'node:crypto';
import {dirname, resolve} from 'node:path';
import {formatOfText} from '../core/contract/contract-text.ts';
import type {ContractKind} from '../core/contract/model.ts';
import {checkContract, type ContractVerdict, type RepositoryFacts} from '../core/contract/rules.ts';
import {ContractParseError, parseContractSource, readContractFile, type ContractDocument} from './contract-file.ts';
import {createRepositoryFacts} from './repository-facts.ts';

/**
 * A checked contract file: the verdict, plus where the file was and in which form, and the text
 * that was checked with its sha256 (what a run or a claim snapshots: docs/contracts.md).
 */
export type CheckedContract = ContractVerdict & {
	readonly file: string;
	readonly format: 'yaml' | 'markdown' | null;
	readonly source: string | null;
	readonly digest: string | null;
};

/** The sha256 of a contract's text, as recorded beside its snapshot. */
export function contractDigest(source: string): string {
	return createHash('sha256').update(source).digest('hex');
}

function checked(
	path: string,
	read: () => ContractDocument & {readonly source: string},
	facts: RepositoryFacts = createRepositoryFacts(dirname(path)),
): CheckedContract {
	try {
		const {format, document, source} = read();
		return {
			...checkContract(document, facts),
			file: path,
			format,
			source,
			digest: contractDigest(source),
		};
	} catch (error) {
		if (!(error instanceof ContractParseError)) throw error;
		return {
			kind: null,
			contract: null,
			isValid: false,
			file: path,
			format: null,
			source: null,
			digest: null,
			problems: [{severity: 'error', field: '(file)', message: error.message}],
		};
	}
}

/**
 * Reads and checks a contract file. A file that does not parse is one `(file)` problem, not a
 * throw, so every caller (CLI, take, run, MCP) reports it the same way.
 */
export function checkContractFile(file: string): CheckedContract {
	const path = resolve(file);
	return checked(path, () => readContractFile(path));
}

/** Checks a contract's text as it was snapshotted from `file`, the same way as the file itself. */
export function checkContractSnapshot(source: string, file: string): CheckedContract {
	const path = resolve(file);
	return checked(path, () => ({...parseContractSource(source, path), source}));
}

/** How a contract given as text is checked: what to call it, who answers its repository questions, its kind when it names none. */
export type TextCheck = {
	/** What messages call it (a stored contract's id, the tool that got it). */
	readonly name: string;
	readonly facts: RepositoryFacts;
	/** The kind the tool it came through writes (write_task: task), when the text names none. */
	readonly kind?: ContractKind;
};

function withKind(document: unknown, kind: ContractKind | undefined): unknown {
	if (kind === undefined || document === null || typeof document !== 'object' || Array.isArray(document)) return document;
	return 'kind' in document ? document : {kind, ...document};
}

/**
 * Checks a contract given as text, not a file (a tool call's, a stored draft's): its form is read
 * off the text (src/core/contract/contract-text.ts), then it is checked exactly as `contract
 * check` checks a file, with `facts` answering what only a checkout can.
 */
export function checkContractText(source: string, check: TextCheck): CheckedContract {
	const file = `${check.name}.${formatOfText(source) === 'markdown' ? 'md' : 'yaml'}`;
	return checked(
		check.name,
		() => {
			const parsed = parseContractSource(source, file);
			return {...parsed, document: withKind(parsed.document, check.kind), source};
		},
		check.facts,
	);
}

/**
 * Why a contract file could not be read as a contract at all (a FIFO, too large, not UTF-8, not
 * YAML), in one line naming the file; null when it was read (its problems, if any, are its fields').
 */
export function unreadContract(checked: CheckedContract): string | null {
	const problem = checked.format === null && checked.problems.length === 1 ? checked.problems[0] : undefined;
	if (problem === undefined) return null;
	const message = problem.message.startsWith(`${checked.file}: `)
		? problem.message.slice(checked.file.length + 2)
		: problem.message;
	return `${checked.file}: not read as a contract: ${message}`;
}
