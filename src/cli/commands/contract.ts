import {existsSync, writeFileSync} from 'node:fs';
import {extname, resolve} from 'node:path';
import {acceptanceLines, acceptorsOf, CONTRACT_KINDS, type ContractKind} from '../../core/contract/model.ts';
import {contractTemplate, evidenceTemplate, type EvidenceTemplateTerms} from '../../core/contract/template.ts';
import {checkContractFile, unreadContract, type CheckedContract} from '../../handoff/check-contract.ts';
import {parseCommandArgs} from '../args.ts';
import {out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import type {CommandHelp} from '../help.ts';

export const help: CommandHelp = {
	synopsis: [
		'contract check FILE [--json]',
		'contract template task|bug|transfer|evidence [FILE] [--contract FILE]',
		'contract new --kind task|bug|transfer [FILE]',
	],
	description: `check: checks a handoff contract (YAML, or Markdown with front matter): one line per problem,
naming the field; warnings do not make it invalid. Writes nothing.
template: writes a template to FILE (.md gives the Markdown form) or to stdout: a contract of a
kind, whose <...> placeholders check flags until filled in (optional ones may stay), or the
evidence file hand-in takes (--contract shapes it to that contract's acceptance lines).
new --kind K: the same as template K.`,
	options: [
		['--json', 'check: the verdict as JSON {version, file, format, kind, valid, problems}'],
		['--kind KIND', 'new: task, bug or transfer'],
		['--contract FILE', 'template evidence: one after entry per acceptance line of this contract'],
	],
	hasNoLedger: true,
	exits: [
		['0', 'check: valid (warnings allowed); template, new: written'],
		['1', 'check: invalid, or the file cannot be read; template, new: FILE exists (never overwritten)'],
		['64', 'bad command line: no subcommand, an unknown kind, more than one FILE'],
	],
	examples: [
		['controlroom contract template task task.yaml', 'a task contract to fill in'],
		['controlroom contract check task.yaml', 'is it complete?'],
		['controlroom contract template evidence evidence.yaml --contract task.yaml', 'the evidence its hand-in needs'],
	],
};

/** The text form of a verdict: a summary line, then one line per problem. */
export function formatVerdict(checked: CheckedContract): string {
	// A file that could not be read as a contract at all (a FIFO, too large, not UTF-8, not YAML): one line.
	const unread = unreadContract(checked);
	if (unread !== null) return unread;
	const errors = checked.problems.filter(problem => problem.severity === 'error').length;
	const warnings = checked.problems.length - errors;
	const what = checked.kind === null ? 'contract' : `${checked.kind} contract`;
	const head = checked.isValid
		? `${checked.file}: valid ${what}${warnings > 0 ? ` (${warnings} warning${warnings === 1 ? '' : 's'})` : ''}`
		: `${checked.file}: invalid ${what}: ${errors} error${errors === 1 ? '' : 's'}${warnings > 0 ? `, ${warnings} warning${warnings === 1 ? '' : 's'}` : ''}`;
	return [head, ...checked.problems.map(problem => `${problem.severity.padEnd(7)} ${problem.field}: ${problem.message}`)].join(
		'\n',
	);
}

/** The JSON form of a verdict (docs/contracts.md). */
export function verdictJson(checked: CheckedContract): object {
	return {
		version: 1,
		file: checked.file,
		format: checked.format,
		kind: checked.kind,
		valid: checked.isValid,
		problems: checked.problems,
	};
}

function check(argv: readonly string[]): number {
	const {values, positionals} = parseCommandArgs('contract check', argv, {json: {type: 'boolean'}});
	rejectLedger('check', values.ledger);
	const file = positionals[0];
	if (file === undefined || positionals.length > 1) throw new CliError('contract check: expected one FILE', USAGE_EXIT);
	const checked = checkContractFile(file);
	out(values.json ? JSON.stringify(verdictJson(checked), null, 2) : formatVerdict(checked));
	return checked.isValid ? 0 : 1;
}

function rejectLedger(verb: string, ledger: string | undefined): void {
	if (ledger !== undefined) throw new CliError(`contract ${verb}: takes no --ledger; contracts are files`, USAGE_EXIT);
}

/** Writes `text` to FILE, never over an existing one, or prints it when there is no FILE. */
function writeTemplate(file: string | undefined, text: string, what: string, next: string): number {
	if (file === undefined) return (process.stdout.write(text), 0);
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

/** `controlroom contract check|template|new`. */
export async function run(argv: readonly string[]): Promise<number> {
	const [verb, ...rest] = argv;
	if (verb === 'check') return check(rest);
	if (verb === 'template') return template(rest);
	if (verb === 'new') return create(rest);
	if (verb === undefined) throw new CliError('contract: expected a subcommand: check, template or new', USAGE_EXIT);
	throw new CliError(`contract: unknown subcommand '${verb}' (check, template, new)`, USAGE_EXIT);
}
