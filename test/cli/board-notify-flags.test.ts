import {describe, expect, it} from 'vitest';
import {runCli, scratchDir} from '../helpers/cli.ts';

describe('board notification flags', () => {
	it.each([
		[
			['--desktop-notify', 'bogus'],
			"controlroom: --desktop-notify: expected one of auto, osc9, osc777, notify-send, off, got 'bogus'\n",
		],
		[
			['--no-notify', '--notify-command', 'cat'],
			'controlroom: board: --no-notify turns every notification off: leave out --notify-command and --desktop-notify\n',
		],
		[['--notify-command', ' '], 'controlroom: --notify-command: the command is empty\n'],
	])('%j: exit 64 with one line', (args, line) => {
		const run = runCli(['board', ...args], {env: {...process.env, CONTROLROOM_HOME: scratchDir()}});
		expect(run.status).toBe(64);
		expect(run.stderr).toBe(line);
	});
});
