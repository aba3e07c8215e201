import type {Ledger} from '../../ledger/open-ledger.ts';
import {ledgerPath} from '../../ledger/paths.ts';
import {diagnose, type Examined} from '../../producers/doctor.ts';
import {terminalSafe} from '../../core/terminal-text.ts';
import {parseCommandArgs} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import type {CommandHelp} from '../help.ts';

export const help: CommandHelp = {
	synopsis: ['doctor [--json]'],
	description: `Checks what controlroom keeps: the ledger's integrity (PRAGMA quick_check), the permissions of the
ledger, its folder and the spool (owner only), the spool's backlog and whether the hook can write
there, spool files set aside as rejected, hook events dropped on a full disk, and whether the
Claude Code and Codex hooks are installed.`,
	options: [['--json', 'the checks as JSON: [{name, state: ok|problem|info, detail}]']],
	exits: [
		['0', 'nothing needs a look'],
		['1', 'a check found a problem (each is one line)'],
		['64', 'bad command line, or no ledger at --ledger PATH'],
	],
	examples: [['controlroom doctor', 'check the default ledger, spool and hooks']],
};

/** `controlroom doctor [--json]`. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('doctor', argv, {json: {type: 'boolean'}});
	if (positionals.length > 0) throw new CliError('doctor: takes no arguments', USAGE_EXIT);
	let ledger: Ledger | null = null;
	let examined: Examined;
	try {
		ledger = openCommandLedger(values.ledger, {mode: 'read'});
		examined = ledger;
	} catch (error) {
		// Not a ledger problem at all (no --ledger file, a folder): the line as every command says it.
		if (!(error instanceof CliError) || error.exitCode === USAGE_EXIT) throw error;
		// A ledger that cannot be opened (a full disk, damage) is one finding; the rest needs none.
		examined = {path: ledgerPath(values.ledger), openProblem: error.message};
	}
	try {
		const checks = diagnose(examined);
		if (values.json) out(JSON.stringify({version: 1, checks}, null, 2));
		else for (const check of checks) out(terminalSafe(`${check.state.padEnd(7)} ${check.name}: ${check.detail}`));
		return checks.some(check => check.state === 'problem') ? 1 : 0;
	} finally {
		ledger?.close();
	}
}
