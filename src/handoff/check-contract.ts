import {createHash} from 'node:crypto';
import {dirname, resolve} from 'node:path';
import type {ContractKind} from '../core/contract/model.ts';
import type {ReceiverPolicy} from '../core/contract/policy.ts';
import {checkContract, type ContractVerdict, type RepositoryFacts} from '../core/contract/rules.ts';
import {ContractParseError, MAX_CONTRACT_BYTES, parseContractSource, readContractText} from './contract-file.ts';
import {createRepositoryFacts} from './repository-facts.ts';

/**
 * A checked contract: the verdict, plus where it came from and in which form, and the text that
 * was checked with its sha256 (what a run or a claim snapshots: docs/contracts.md).
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

/** A contract's text, wherever it came from: a file, a snapshot in the ledger, a chat through a connector. */
export type ContractText = {
	readonly text: string;
	/** Where it came from, for messages: a file's path, or a name such as `chat:…`. Its extension chooses the form. */
	readonly name: string;
	/** The form, when the name does not say it (`.md` is Markdown, another extension YAML, none: the text's first line). */
	readonly format?: 'yaml' | 'markdown';
	/** The folder a relative `context.repository` (or none) is read from: the file's folder, or the receiver's. */
	readonly baseDir: string;
	/**
	 * Who answers what only a checkout can (a revision, a command the repository defines), when not
	 * `baseDir`'s git: a stored contract's are its repository's checkout on this host, through the
	 * map (src/handoff/repository-map.ts).
	 */
	readonly facts?: RepositoryFacts;
	/** The kind the tool it came through writes (write_task: task), when the text names none. */
	readonly kind?: ContractKind;
};

export type CheckContractOptions = {
	/** What the receiver requires (docs/contracts.md, "The receiver's policy"). */
	readonly policy?: ReceiverPolicy;
};

function withKind(document: unknown, kind: ContractKind | undefined): unknown {
	if (kind === undefined || document === null || typeof document !== 'object' || Array.isArray(document)) return document;
	return 'kind' in document ? document : {kind, ...document};
}

function unreadable(file: string, message: string): CheckedContract {
	return {
		kind: null,
		contract: null,
		isValid: false,
		file,
		format: null,
		source: null,
		digest: null,
		shape: null,
		canonical: null,
		guesses: [],
		problems: [{severity: 'error', field: '(file)', message}],
	};
}

/**
 * Checks a contract's text in any shape: the one entry point every door uses (a file, `take`,
 * `run --contract`, a snapshot, text from a chat). Text that cannot be read as a contract at all
 * (too long, a NUL byte, not YAML) is one `(file)` problem, not a throw. A tool call's text, with
 * no file, passes its form (formatOfText), the facts of its mapped checkout and the tool's kind.
 */
export function checkContractText(input: ContractText, options: CheckContractOptions = {}): CheckedContract {
	if (Buffer.byteLength(input.text) > MAX_CONTRACT_BYTES)
		return unreadable(input.name, `${input.name}: is too large (the limit is ${MAX_CONTRACT_BYTES} bytes)`);
	try {
		const {format, document} = parseContractSource(input.text, input.name, input.format);
		const facts = input.facts ?? createRepositoryFacts(input.baseDir);
		return {
			...checkContract(withKind(document, input.kind), facts, {format, policy: options.policy}),
			file: input.name,
			format,
			source: input.text,
			digest: contractDigest(input.text),
		};
	} catch (error) {
		if (!(error instanceof ContractParseError)) throw error;
		return unreadable(input.name, error.message);
	}
}

/**
 * Reads and checks a contract file (no link followed, no FIFO waited on, bounded, strict UTF-8:
 * docs/security.md). A file that cannot be read is one `(file)` problem, so every caller (CLI,
 * take, run, MCP) reports it the same way.
 */
export function checkContractFile(file: string, options: CheckContractOptions = {}): CheckedContract {
	const path = resolve(file);
	let text: string;
	try {
		text = readContractText(path);
	} catch (error) {
		if (!(error instanceof ContractParseError)) throw error;
		return unreadable(path, error.message);
	}
	return checkContractText({text, name: path, baseDir: dirname(path)}, options);
}

/** Checks a contract's text as it was snapshotted from `file`, the same way as the file itself. */
export function checkContractSnapshot(source: string, file: string, options: CheckContractOptions = {}): CheckedContract {
	const path = resolve(file);
	return checkContractText({text: source, name: path, baseDir: dirname(path)}, options);
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
