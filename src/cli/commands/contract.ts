import {existsSync, writeFileSync} from 'node:fs';
import {extname} from 'node:path';
import {CONTRACT_KINDS, type ContractKind} from '../../core/contract/model.ts';
import {contractTemplate} from '../../core/contract/template.ts';
import {checkContractFile, type CheckedContract} from '../../handoff/check-contract.ts';
import {parseCommandArgs} from '../args.ts';
import {out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';

export const usage = `controlroom contract check FILE [--json]
  Checks a handoff contract (YAML, or Markdown with front matter): one line per problem, naming
  the field. Exit 0 valid (warnings allowed), 1 invalid.
controlroom contract new --kind task|bug|transfer [FILE]
  Writes a template (to FILE, .md for the Markdown form, or to stdout) that check flags until filled in.`;

/** The text form of a verdict: a summary line, then one line per problem. */
export function formatVerdict(checked: CheckedContract): string {
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
	if (values.help) return (out(usage), 0);
	const file = positionals[0];
	if (file === undefined || positionals.length > 1) throw new CliError('contract check: expected one FILE', USAGE_EXIT);
	const checked = checkContractFile(file);
	out(values.json ? JSON.stringify(verdictJson(checked), null, 2) : formatVerdict(checked));
	return checked.isValid ? 0 : 1;
}

function create(argv: readonly string[]): number {
	const {values, positionals} = parseCommandArgs('contract new', argv, {kind: {type: 'string'}});
	if (values.help) return (out(usage), 0);
	const kind = CONTRACT_KINDS.find(candidate => candidate === values.kind);
	if (kind === undefined) throw new CliError('contract new: --kind: expected task, bug or transfer', USAGE_EXIT);
	const file = positionals[0];
	if (positionals.length > 1) throw new CliError('contract new: expected at most one FILE', USAGE_EXIT);
	const isMarkdown = file !== undefined && ['.md', '.markdown'].includes(extname(file).toLowerCase());
	const text = contractTemplate(kind as ContractKind, isMarkdown ? 'markdown' : 'yaml');
	if (file === undefined) return (process.stdout.write(text), 0);
	if (existsSync(file)) throw new CliError(`contract new: ${file} exists; not overwriting it`);
	writeFileSync(file, text, {flag: 'wx'});
	out(`wrote a ${kind} contract template to ${file}; fill in every <...>, then run: controlroom contract check ${file}`);
	return 0;
}

/** `controlroom contract check|new`. */
export async function run(argv: readonly string[]): Promise<number> {
	const [verb, ...rest] = argv;
	if (verb === 'check') return check(rest);
	if (verb === 'new') return create(rest);
	if (verb === '--help' || verb === '-h' || verb === undefined) return (out(usage), verb === undefined ? USAGE_EXIT : 0);
	throw new CliError(`contract: unknown subcommand '${verb}' (check, new)`, USAGE_EXIT);
}
