import {existsSync, writeFileSync} from 'node:fs';
import {basename, dirname, extname, join, resolve} from 'node:path';
import {stringify} from 'yaml';
import {acceptanceLines, acceptorsOf, CONTRACT_KINDS, inCanonicalOrder, type ContractKind} from '../../core/contract/model.ts';
import {SHAPE_NAMES} from '../../core/contract/shapes.ts';
import {terminalSafe, terminalSafeJson} from '../../core/terminal-text.ts';
import {receiverPolicy} from '../contract-policy.ts';
import {nonEmptyAs} from '../person-name.ts';
import {contractTemplate, evidenceTemplate, type EvidenceTemplateTerms} from '../../core/contract/template.ts';
import {checkContractFile, unreadContract, type CheckedContract} from '../../handoff/check-contract.ts';
import {parseCommandArgs} from '../args.ts';
import {out} from '../output.ts';
import {isStoredContractId, writerLine} from '../../core/contract/intake.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import {outputFile} from '../output-path.ts';
import type {CommandHelp} from '../help.ts';

export const help: CommandHelp = {
	synopsis: [
		'contract check FILE [--json] [--require LIST]',
		'contract normalize FILE [--force]',
		'contract ready FILE|ID [--as NAME]',
		'contract template task|bug|transfer|evidence [FILE] [--contract FILE]',
		'contract new --kind task|bug|transfer [FILE]',
	],
	description: `check: checks a handoff contract in any shape people write (the Markdown guide, the canonical
YAML, the YAML template, the portable five fields, the seven production fields): one line per
problem, naming the field as written, the shape it was read as, and the fix; warnings do not make
it invalid. --json shows the canonical form it read. Writes nothing.
normalize: writes the canonical form beside the file (NAME.canonical.yaml; the original is kept),
so you see how your file was understood.
ready: a person says the contract is ready; when it names no acceptor, you accept its work
(--as names you). Only a person at a terminal (docs/security.md). An ID (ct-...) is a contract
stored in the ledger, written through serve or an agent's mcp: until then pickup leaves it.
template: writes a template to FILE (.md gives the Markdown form) or to stdout: a contract of a
kind, whose <...> placeholders check flags until filled in (its optional lines are comments), or
the evidence file hand-in takes (--contract shapes it to that contract's acceptance lines).
new --kind K: the same as template K.`,
	options: [
		['--json', 'check: the verdict as JSON {version, file, format, shape, kind, valid, problems, guesses, contract}'],
		[
			'--require LIST',
			'check: what the receiver requires, comma-separated: state, authority, evidence, guardrails, trace (or trace:exception), escalation, execution, delivery, stop_when, scope (default: contractRequire in the config file)',
		],
		['--force', 'normalize: replace an existing NAME.canonical.yaml'],
		['--as NAME', 'ready: the name you accept under (default: your OS user)'],
		['--ledger PATH', 'ready: the ledger to record it in (default: $CONTROLROOM_HOME/ledger.db); the other verbs take none'],
		['--kind KIND', 'new: task, bug or transfer'],
		['--contract FILE', 'template evidence: one after entry per acceptance line of this contract'],
	],
	exits: [
		['0', 'check, normalize: valid (warnings allowed); ready: recorded; template, new: written'],
		[
			'1',
			'check: invalid, or the file cannot be read; normalize: invalid (the canonical form is written all the same) or the output exists; ready: invalid, or you would accept your own work, or (ID) no such stored contract, ready already, accepted, or taken with someone to accept it; template, new: FILE exists (never overwritten)',
		],
		[
			'64',
			'bad command line: no subcommand, an unknown kind, more than one FILE, a bad --require, a FILE whose folder does not exist',
		],
		['77', 'ready: asked by an agent, not a person (recorded)'],
	],
	examples: [
		['controlroom contract template task task.yaml', 'a task contract to fill in'],
		['controlroom contract check task.yaml', 'is it complete?'],
		['controlroom contract check handoff.md --require authority,trace', 'and complete for a receiver that requires those?'],
		['controlroom contract normalize handoff.md', 'writes handoff.canonical.yaml: how it was read'],
		['controlroom contract ready handoff.md', 'it is ready, and you accept its work'],
		['controlroom contract template evidence evidence.yaml --contract task.yaml', 'the evidence its hand-in needs'],
		['controlroom contract ready ct-3f2c1e0a9b8d', 'a draft written through serve may now be taken by pickup'],
	],
};

/** The text form of a verdict: a summary line, then one line per problem. */
export function formatVerdict(checked: CheckedContract): string {
	// A file that could not be read as a contract at all (a FIFO, too large, not UTF-8, not YAML): one line.
	const unread = unreadContract(checked);
	if (unread !== null) return unread;
	const errors = checked.problems.filter(problem => problem.severity === 'error').length;
	const warnings = checked.problems.length - errors;
	const shape = checked.shape !== null && checked.shape !== 'canonical' ? `, read as ${SHAPE_NAMES[checked.shape]}` : '';
	const what = `${checked.kind === null ? 'contract' : `${checked.kind} contract`}${shape}`;
	const head = checked.isValid
		? `${checked.file}: valid ${what}${warnings > 0 ? ` (${warnings} warning${warnings === 1 ? '' : 's'})` : ''}`
		: `${checked.file}: invalid ${what}: ${errors} error${errors === 1 ? '' : 's'}${warnings > 0 ? `, ${warnings} warning${warnings === 1 ? '' : 's'}` : ''}`;
	const guesses = checked.guesses.map(guess => `check first ${guess.field}: ${guess.text}`);
	return [
		head,
		...checked.problems.map(problem => `${problem.severity.padEnd(7)} ${problem.field}: ${problem.message}`),
		...guesses,
	]
		.map(terminalSafe)
		.join('\n');
}

/** The JSON form of a verdict (docs/contracts.md). */
export function verdictJson(checked: CheckedContract): object {
	return {
		version: 1,
		file: checked.file,
		format: checked.format,
		shape: checked.shape,
		kind: checked.kind,
		valid: checked.isValid,
		problems: checked.problems,
		guesses: checked.guesses,
		contract: checked.canonical === null ? null : inCanonicalOrder(checked.canonical),
	};
}

function check(argv: readonly string[]): number {
	const {values, positionals} = parseCommandArgs('contract check', argv, {json: {type: 'boolean'}, require: {type: 'string'}});
	rejectLedger('check', values.ledger);
	const file = positionals[0];
	if (file === undefined || positionals.length > 1) throw new CliError('contract check: expected one FILE', USAGE_EXIT);
	const checked = checkContractFile(file, {policy: receiverPolicy(values.require)});
	out(values.json ? terminalSafeJson(verdictJson(checked), 2) : formatVerdict(checked));
	return checked.isValid ? 0 : 1;
}

/** Where normalize writes: `NAME.canonical.yaml` beside the file. */
export function normalizedPath(file: string): string {
	const name = basename(file).replace(/\.(?:ya?ml|md|markdown|json)$/i, '');
	return join(dirname(file), `${name}.canonical.yaml`);
}

/** `contract normalize FILE`: the canonical form as read, written beside the original (never over it). */
function normalize(argv: readonly string[]): number {
	const {values, positionals} = parseCommandArgs('contract normalize', argv, {force: {type: 'boolean'}});
	rejectLedger('normalize', values.ledger);
	const file = positionals[0];
	if (file === undefined || positionals.length > 1) throw new CliError('contract normalize: expected one FILE', USAGE_EXIT);
	const checked = checkContractFile(file);
	const unread = unreadContract(checked);
	if (unread !== null || checked.canonical === null) return (out(unread ?? formatVerdict(checked)), 1);
	const target = normalizedPath(checked.file);
	if (target === checked.file) throw new CliError(`contract normalize: ${target} is already the canonical form's name`);
	const text = `# The canonical form of ${basename(checked.file)}, as controlroom read it (read as ${SHAPE_NAMES[checked.shape ?? 'canonical']}).\n${stringify(inCanonicalOrder(checked.canonical))}`;
	try {
		writeFileSync(target, text, {flag: values.force ? 'w' : 'wx'});
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === 'EEXIST')
			throw new CliError(`contract normalize: ${target} exists; --force replaces it`);
		throw error;
	}
	out([`wrote ${target}`, formatVerdict(checked)].join('\n'));
	return checked.isValid ? 0 : 1;
}

/** What `contract ready` says of a contract made ready: who accepts its work, and a claim that now waits for them. */
function readyLine(
	what: string,
	result: {acceptors: readonly string[]; isPersonAcceptor: boolean; claimTaskId: string | null},
): string {
	const who = result.isPersonAcceptor
		? `${result.acceptors.join(', ')} accepts its work`
		: `its acceptors: ${result.acceptors.join(', ')} (named in the contract)`;
	const claim = result.claimTaskId === null ? '' : `; claim ${result.claimTaskId} now waits for ${result.acceptors.join(', ')}`;
	return terminalSafe(`ready: ${what}; ${who}${claim}`);
}

/**
 * `contract ready FILE|ID`: a person says it is ready, and accepts it when it names nobody. An ID
 * (`ct-…`, and no file of that name here) is a contract stored in the ledger; the record is the
 * same one (src/gates/handover.ts).
 */
async function ready(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('contract ready', argv, {as: {type: 'string'}});
	const file = positionals[0];
	if (file === undefined || positionals.length > 1) throw new CliError('contract ready: expected one FILE or ID', USAGE_EXIT);
	const as = nonEmptyAs('contract ready', values.as) ?? null;
	const isStored = isStoredContractId(file) && !existsSync(file);
	// Loaded here: check and normalize never open a ledger, and do not pay for it.
	const [{readyContractFile, readyStoredContract}, {openCommandLedger}, {reportRefusal}] = await Promise.all([
		import('../../gates/handover.ts'),
		import('../context.ts'),
		import('../handoff-report.ts'),
	]);
	// A stored contract is in a ledger already; a file's record may be the ledger's first.
	const ledger = openCommandLedger(values.ledger, {mode: isStored ? 'existing' : 'create'});
	try {
		return reportRefusal(() => {
			if (!isStored) {
				const result = readyContractFile(ledger, {file, as, source: 'cli'});
				out(readyLine(result.file, result));
				return 0;
			}
			const {record, ready: result} = readyStoredContract(ledger, {id: file, as, source: 'cli'});
			out(readyLine(`${record.id} "${record.title ?? ''}" written by ${writerLine(record.writer)}`, result));
			return 0;
		});
	} finally {
		ledger.close();
	}
}

function rejectLedger(verb: string, ledger: string | undefined): void {
	if (ledger !== undefined) throw new CliError(`contract ${verb}: takes no --ledger; contracts are files`, USAGE_EXIT);
}

/** Writes `text` to FILE, never over an existing one, or prints it when there is no FILE. */
function writeTemplate(file: string | undefined, text: string, what: string, next: string): number {
	if (file === undefined) return (process.stdout.write(text), 0);
	outputFile('contract template', file);
	if (existsSync(file)) throw new CliError(`contract template: ${resolve(file)} exists; not overwriting it`);
	writeFileSync(file, text, {flag: 'wx'});
	out(`wrote ${what} to ${file}; fill in every <...>, then run: ${next.replace('FILE', file)}`);
	return 0;
}

function contractTemplateFile(kind: ContractKind, file: string | undefined): number {
	const isMarkdown = file !== undefined && ['.md', '.markdown'].includes(extname(file).toLowerCase());
	return writeTemplate(
		file,
		contractTemplate(kind, isMarkdown ? 'markdown' : 'yaml'),
		`a ${kind} contract template`,
		'controlroom contract check FILE',
	);
}

/** The acceptance lines and acceptors of a valid contract, for an evidence template. */
function termsOf(contractFile: string): EvidenceTemplateTerms {
	const checked = checkContractFile(contractFile);
	if (checked.contract === null)
		throw new CliError(
			`contract template evidence: --contract ${checked.file} cannot be read as a contract (contract check says why)`,
		);
	return {checks: acceptanceLines(checked.contract), acceptors: Object.keys(acceptorsOf(checked.contract))};
}

function template(argv: readonly string[]): number {
	const {values, positionals} = parseCommandArgs('contract template', argv, {contract: {type: 'string'}});
	rejectLedger('template', values.ledger);
	const [kind, file, ...extra] = positionals;
	if (extra.length > 0) throw new CliError('contract template: expected a kind and at most one FILE', USAGE_EXIT);
	if (kind === 'evidence') {
		const terms = values.contract === undefined ? null : termsOf(values.contract);
		return writeTemplate(file, evidenceTemplate(terms), 'an evidence template', 'controlroom hand-in TASK --evidence FILE');
	}
	if (values.contract !== undefined)
		throw new CliError('contract template: --contract shapes only the evidence template', USAGE_EXIT);
	const contractKind = CONTRACT_KINDS.find(candidate => candidate === kind);
	if (contractKind === undefined)
		throw new CliError(`contract template: expected task, bug, transfer or evidence, got '${kind ?? ''}'`, USAGE_EXIT);
	return contractTemplateFile(contractKind, file);
}

function create(argv: readonly string[]): number {
	const {values, positionals} = parseCommandArgs('contract new', argv, {kind: {type: 'string'}});
	rejectLedger('new', values.ledger);
	const kind = CONTRACT_KINDS.find(candidate => candidate === values.kind);
	if (kind === undefined) throw new CliError('contract new: --kind: expected task, bug or transfer', USAGE_EXIT);
	if (positionals.length > 1) throw new CliError('contract new: expected at most one FILE', USAGE_EXIT);
	return contractTemplateFile(kind, positionals[0]);
}

/** `controlroom contract check|template|new|ready`. */
export async function run(argv: readonly string[]): Promise<number> {
	const [verb, ...rest] = argv;
	if (verb === 'check') return check(rest);
	if (verb === 'normalize') return normalize(rest);
	if (verb === 'ready') return ready(rest);
	if (verb === 'template') return template(rest);
	if (verb === 'new') return create(rest);
	if (verb === undefined)
		throw new CliError('contract: expected a subcommand: check, normalize, ready, template or new', USAGE_EXIT);
	throw new CliError(`contract: unknown subcommand '${verb}' (check, normalize, ready, template, new)`, USAGE_EXIT);
}
