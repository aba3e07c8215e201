import {tripwireOf} from '../core/contract/commands.ts';
import type {Contract} from '../core/contract/model.ts';
import {error, type ContractProblem} from '../core/contract/problems.ts';
import {terminalSafe} from '../core/terminal-text.ts';

// A guardrail's tripwire that names a script or target the repository defines is run at take and
// at hand-in, through the wrapper (a recorded task), in the contract's repository; one that exits
// non-zero has tripped and blocks (docs/contracts.md, "Tripwires"). Nothing else is ever run: a
// contract can come from outside the machine.

/** One tripwire to run: the words (never a shell line), where, and how the task is titled. */
export type TripwireRun = {
	readonly argv: readonly string[];
	readonly cwd: string;
	readonly title: string;
	/** The claim it is run for, once there is one (a hand-in's): its task's parent. */
	readonly parentId: string | null;
};

/** What a tripwire's wrapped run came to. */
export type TripwireResult = {readonly taskId: string | null; readonly exitCode: number | null; readonly output: string};

/** Runs one tripwire through the wrapper and waits for it (given by the command that runs handoffs: src/cli/tripwire-run.ts). */
export type TripwireRunner = (run: TripwireRun) => TripwireResult;

/** A tripwire as run, as recorded with the take or the hand-in. */
export type TripwireOutcome = {
	readonly tripwire: string;
	readonly taskId: string | null;
	readonly exitCode: number | null;
};

/** The last line of a tripwire's output worth showing with its refusal. */
function lastLine(output: string): string {
	const line = terminalSafe(output.trim().split('\n').at(-1)?.trim() ?? '');
	return line.length > 160 ? `${line.slice(0, 159)}…` : line;
}

/**
 * Runs the contract's runnable tripwires in its repository, one by one; a tripped one (exit other
 * than 0) is an error naming it, its exit code and its task.
 */
export function runTripwires(
	contract: Contract,
	repository: string | null,
	runner: TripwireRunner | undefined,
	context: {readonly verb: 'take' | 'hand-in'; readonly parentId: string | null; readonly title: string},
): {readonly outcomes: readonly TripwireOutcome[]; readonly problems: readonly ContractProblem[]} {
	const outcomes: TripwireOutcome[] = [];
	const problems: ContractProblem[] = [];
	const tripwires = contract.guardrails?.tripwires ?? [];
	if (runner === undefined || repository === null) return {outcomes, problems};
	tripwires.forEach((text, index) => {
		const tripwire = tripwireOf(text);
		if (!tripwire.isRunnable) return;
		const command = tripwire.argv.join(' ');
		const result = runner({
			argv: tripwire.argv,
			cwd: repository,
			title: `tripwire at ${context.verb}: ${command} (${context.title})`,
			parentId: context.parentId,
		});
		outcomes.push({tripwire: command, taskId: result.taskId, exitCode: result.exitCode});
		if (result.exitCode !== 0) {
			const last = lastLine(result.output);
			problems.push(
				error(
					`guardrails.tripwires[${index}]`,
					`tripped: \`${command}\` exited ${result.exitCode ?? 'without an exit code'}${result.taskId ? ` (task ${result.taskId})` : ''}${last ? `: ${last}` : ''}; the ${context.verb} is refused`,
				),
			);
		}
	});
	return {outcomes, problems};
}
