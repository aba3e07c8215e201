import {markScreenshotsLooked} from '../../gates/screenshots-looked.ts';
import {terminalSafe} from '../../core/terminal-text.ts';
import {parseCommandArgs, positiveInt} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import {gateCall} from '../gate-call.ts';
import type {CommandHelp} from '../help.ts';
import {nonEmptyAs} from '../person-name.ts';

export const help: CommandHelp = {
	synopsis: ['looked TASK [--line N] [--as NAME]'],
	description: `Says you looked at the screenshots a hand-in brought as evidence (those of acceptance line N, or
all): each is kept by its content hash beside the ledger, and its path is printed, so what you
looked at is exactly what was handed in. An acceptance line marked (screenshot) is accepted only
after this. Only a person at a terminal, never the one who did the work (docs/contracts.md,
docs/security.md).`,
	options: [
		['--line N', 'only the screenshots of acceptance line N'],
		['--as NAME', 'who looked (default: your OS user)'],
	],
	exits: [
		['0', 'recorded'],
		['1', 'no such task, its hand-in has no screenshot (for that line), a kept copy changed, or NAME did the work'],
		['64', 'bad command line (no TASK, a bad --line), or no ledger at --ledger PATH'],
		['77', 'refused: an agent asked (recorded; docs/security.md)'],
	],
	examples: [['controlroom looked claim-3f2c1e0a9b1d-1 --line 3', 'you looked at the screenshot for line 3']],
};

/** `controlroom looked TASK`. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('looked', argv, {line: {type: 'string'}, as: {type: 'string'}});
	const ref = positionals[0];
	if (ref === undefined || positionals.length > 1) throw new CliError('looked: expected one TASK', USAGE_EXIT);
	const line = positiveInt('line', values.line) ?? null;
	const as = nonEmptyAs('looked', values.as) ?? null;
	const ledger = openCommandLedger(values.ledger, {mode: 'existing'});
	try {
		const result = await gateCall(() => markScreenshotsLooked(ledger, {ref, line, as, source: 'cli'}));
		const lines = result.marked.map(
			shot => `looked at line ${shot.line}: ${shot.kept} (sha256 ${shot.sha256.slice(0, 12)}) by ${result.by}`,
		);
		out(lines.map(terminalSafe).join('\n'));
		return 0;
	} finally {
		ledger.close();
	}
}
