import {spawnSync} from 'node:child_process';
import {randomBytes} from 'node:crypto';
import {join} from 'node:path';
import type {TripwireRunner} from '../handoff/tripwires.ts';
import {packageRoot} from './package-root.ts';

/** A tripwire that runs longer than this is stopped (and counts as tripped): a check, not a job. */
const TRIPWIRE_TIMEOUT_MS = 10 * 60 * 1000;
/** Its output kept for the refusal line: the end of it. */
const OUTPUT_LIMIT = 64 * 1024;

/**
 * Runs a contract's tripwire under the wrapper (docs/contracts.md, "Tripwires"): `controlroom run
 * --role tripwire` on the same ledger, so it is a recorded task (registered before it starts, its
 * exit code kept) that takes no admission slot. Only the words of a script or target are passed,
 * never a shell line; the child's output is captured, not shown.
 */
export function tripwireRunner(ledgerFile: string): TripwireRunner {
	const bin = join(packageRoot(), 'bin', 'controlroom');
	return run => {
		const taskId = `t-${randomBytes(5).toString('hex')}`;
		const result = spawnSync(
			process.execPath,
			[
				bin,
				'run',
				'--ledger',
				ledgerFile,
				'--role',
				'tripwire',
				'--task-id',
				taskId,
				'--title',
				run.title,
				'--cwd',
				run.cwd,
				...(run.parentId === null ? [] : ['--parent', run.parentId]),
				'--',
				...run.argv,
			],
			{encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: TRIPWIRE_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024},
		);
		// The wrapper's own notices (`controlroom: ...`) are not the tripwire's output.
		const output = `${result.stdout ?? ''}${result.stderr ?? ''}`
			.split('\n')
			.filter(line => !line.startsWith('controlroom: '))
			.join('\n')
			.slice(-OUTPUT_LIMIT);
		return {taskId, exitCode: result.error ? null : result.status, output};
	};
}
