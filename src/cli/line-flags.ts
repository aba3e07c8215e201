import {reasonProblem, type AskedVerdict} from '../core/contract/line-verdicts.ts';
import {CliError, USAGE_EXIT} from './errors.ts';

const WHOLE = /^\d+$/;

/**
 * Takes `--line N --met` and `--line N --unmet REASON` (repeatable, in pairs, as `accept` and
 * `send-back` read them) out of a command line; the rest goes to the command's own parser. A
 * `--line` with no verdict after it, a verdict with no `--line` before it, a number that is not a
 * whole number, and a reason with control characters or over the limit are usage errors (64), one
 * line each. Whether the contract has the line is for the gate to say.
 */
export function takeLineFlags(
	command: string,
	argv: readonly string[],
): {readonly verdicts: AskedVerdict[]; readonly rest: string[]} {
	const verdicts: AskedVerdict[] = [];
	const rest: string[] = [];
	for (let index = 0; index < argv.length; index += 1) {
		const arg = argv[index] ?? '';
		if (arg === '--') {
			rest.push(...argv.slice(index));
			break;
		}
		if (arg === '--met' || arg === '--unmet' || arg.startsWith('--unmet='))
			throw new CliError(`${command}: ${arg.split('=')[0]} needs --line N before it (--line 2 ${arg.split('=')[0]})`, USAGE_EXIT);
		if (arg !== '--line' && !arg.startsWith('--line=')) {
			rest.push(arg);
			continue;
		}
		const number = arg.startsWith('--line=') ? arg.slice('--line='.length) : argv[(index += 1)];
		if (number === undefined || !WHOLE.test(number))
			throw new CliError(`${command}: --line: expected an acceptance line's number (1, 2, …), got '${number ?? ''}'`, USAGE_EXIT);
		const line = Number(number);
		const verdict = argv[(index += 1)];
		if (verdict === '--met') {
			verdicts.push({line, verdict: 'met', reason: null});
			continue;
		}
		const inline = verdict?.startsWith('--unmet=') ? verdict.slice('--unmet='.length) : undefined;
		if (verdict !== '--unmet' && inline === undefined)
			throw new CliError(`${command}: --line ${line}: say --met or --unmet "REASON" after it`, USAGE_EXIT);
		const reason = inline ?? argv[(index += 1)];
		if (reason === undefined || reason.trim() === '' || (inline === undefined && reason.startsWith('--')))
			throw new CliError(`${command}: --line ${line} --unmet: a reason is required (what is missing?)`, USAGE_EXIT);
		const problem = reasonProblem(reason);
		if (problem !== null) throw new CliError(`${command}: --line ${line} --unmet: ${problem}`, USAGE_EXIT);
		verdicts.push({line, verdict: 'unmet', reason: reason.replace(/\s+/g, ' ').trim()});
	}
	return {verdicts, rest};
}
