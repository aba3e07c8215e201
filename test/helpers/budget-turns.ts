import {existsSync, readFileSync} from 'node:fs';
import {join} from 'node:path';

// The model's turns of the budget tests (docs/headless-holds.md, "Budgets that pause"): the fake
// Anthropic server reports each turn's usage as scripted.

/** Four turns of 12k tokens each (the harness's per-turn usage), a tool call in each of the first three. */
export const TWELVE_K_TURNS: readonly object[] = [
	...[1, 2, 3].map(n => ({
		tool: 'Bash',
		input: {command: `echo turn${n} >> turns.txt`, description: `turn ${n}`},
		usage: {input_tokens: 12_000},
	})),
	{text: 'all turns done', usage: {input_tokens: 12_000}},
];

/** Which of those turns' calls ran: the lines they appended to the project's turns.txt. */
export function turnsRun(dir: string): string[] {
	const file = join(dir, 'project', 'turns.txt');
	return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : [];
}
